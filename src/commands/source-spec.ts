import { statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { SkillHubError } from "../util/errors.ts";
import { expandHome } from "../util/home-path.ts";

/** What `skillhub add` / `remove` was given: a git repository (with a folder and a ref), or a local folder. */
export type SourceSpec =
  | {
      kind: "git";
      /** The URL git fetches. */
      url: string;
      /** The skills folder inside the repository. */
      path?: string;
      /** A tag, branch or commit written in the source (`owner/repo@v1`, `URL#v1`, a GitHub tree URL). */
      ref?: string;
      /** How the user wrote it, for messages. */
      written: string;
      /** Written as the path of a bare repository (its URL is `file://` that path). */
      bare?: true;
    }
  | { kind: "folder"; dir: string; written: string };

/** A source that cannot be understood: a usage error with one sentence. */
export class SourceError extends SkillHubError {
  constructor(message: string) {
    super("INVALID_ARGUMENT", message);
    this.name = "SourceError";
  }
}

const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const SCP_LIKE = /^[^@/\s]+@[^:/\s]+:(?!\/\/)\S+$/;
/** GitHub's owner (39 characters, letters, digits, inner hyphens) and repository names. */
const SHORTHAND =
  /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?)\/([A-Za-z0-9._-]+?)(?:\.git)?(?:\/([^@]+?))?\/?(?:@([^@\s]+))?$/;
/** A GitHub page of a folder: https://github.com/OWNER/REPO/tree/REF/PATH. */
const GITHUB_TREE = /^https:\/\/github\.com\/([^/]+)\/([^/]+?)(?:\.git)?\/tree\/([^/]+)(?:\/(.+?))?\/?$/;

export interface SourceContext {
  cwd: string;
  homeDir: string;
  /** A path that is not there is still a folder (`remove` of a folder already deleted). Default false. */
  missingFolders?: boolean;
}

/**
 * Read a source as `skillhub add` takes it. A path (./x, ../x, /x, ~/x, or an existing folder) is a
 * local folder, or the git repository `file://PATH` when it is a bare repository; a URL (https://,
 * ssh://, git://, file://, user@host:path) is a git repository, with `#REF` for a ref, and a GitHub
 * folder page (…/tree/REF/PATH) read as its repository, ref and folder; `owner/repo[/path][@ref]` is
 * a GitHub repository. Throws SourceError.
 */
export function parseSource(text: string, ctx: SourceContext): SourceSpec {
  const written = text.trim();
  if (written === "") throw new SourceError("name a source: a git URL, owner/repo (GitHub) or a folder.");
  if (written.startsWith("-"))
    throw new SourceError(`'${written}' is not a source; if it is a folder, write ./${written}.`);
  let local: string | undefined;
  try {
    local = localFolder(written, ctx);
  } catch (error) {
    const pinned = bareAtRef(written, ctx);
    if (pinned) return pinned;
    throw error;
  }
  // A bare repository holds no files to serve, only history: git fetches it as file://.
  if (local !== undefined && isBareRepository(local))
    return { kind: "git", url: pathToFileURL(local).href, written, bare: true };
  if (local !== undefined) return { kind: "folder", dir: local, written };
  const tree = GITHUB_TREE.exec(written);
  if (tree) {
    const [, owner, repo, ref, path] = tree;
    return { kind: "git", url: `https://github.com/${owner}/${repo}.git`, ref, ...(path ? { path } : {}), written };
  }
  if (URL_SCHEME.test(written)) {
    const [address = "", ref] = written.split("#", 2);
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      throw new SourceError(`'${written}' is not a valid URL.`);
    }
    if (!["https:", "http:", "ssh:", "git:", "file:"].includes(url.protocol) && !url.protocol.startsWith("git+"))
      throw new SourceError(
        `'${written}' is not a git URL SkillHub fetches (https://, ssh://, git://, file:// or user@host:path).`,
      );
    if (url.protocol !== "file:" && url.hostname === "") throw new SourceError(`'${written}' names no host.`);
    return { kind: "git", url: address, ...(ref ? { ref } : {}), written };
  }
  if (SCP_LIKE.test(written)) {
    const [address = "", ref] = written.split("#", 2);
    return { kind: "git", url: address, ...(ref ? { ref } : {}), written };
  }
  const short = SHORTHAND.exec(written);
  if (short) {
    const [, owner, repo, path, ref] = short;
    return {
      kind: "git",
      url: `https://github.com/${owner}/${repo}.git`,
      ...(path ? { path } : {}),
      ...(ref ? { ref } : {}),
      written,
    };
  }
  throw new SourceError(
    `'${written}' is not a git URL, an owner/repo GitHub shorthand or a folder (examples: anthropics/skills, https://git.example.com/team/skills.git, ./my-skills).`,
  );
}

/**
 * The folder `text` names, when it is a path or an existing folder (a folder `acme/skills` in the
 * working directory wins over the GitHub shorthand). Throws for a path that is not a folder.
 */
function localFolder(text: string, ctx: SourceContext): string | undefined {
  const expanded = expandHome(text, ctx.homeDir);
  const pathLike =
    /^\.{1,2}([/\\]|$)/.test(text) || text.startsWith("~") || isAbsolute(expanded) || /^[A-Za-z]:[\\/]/.test(text);
  const dir = resolve(ctx.cwd, expanded);
  const kind = statKind(dir);
  if (kind === "dir" && (pathLike || !URL_SCHEME.test(text))) return dir;
  if (!pathLike) return undefined;
  if (kind === undefined && ctx.missingFolders) return dir;
  throw new SourceError(
    kind === "file" ? `${dir} is a file, not a folder of skills.` : `the folder ${dir} does not exist.`,
  );
}

/**
 * `PATH#REF` where PATH is a bare repository: that repository at REF, as `file://PATH#REF` reads. `PATH@REF`
 * (the shorthand's form) is refused with the forms that work, since `@` may be part of a folder's name.
 */
function bareAtRef(written: string, ctx: SourceContext): SourceSpec | undefined {
  const at = Math.max(written.lastIndexOf("#"), written.lastIndexOf("@"));
  if (at <= 0) return undefined;
  let dir: string | undefined;
  try {
    dir = localFolder(written.slice(0, at), ctx);
  } catch {
    return undefined;
  }
  if (dir === undefined || !isBareRepository(dir)) return undefined;
  const ref = written.slice(at + 1);
  if (written[at] === "@")
    throw new SourceError(
      `${dir} is a bare repository; to add it at ${ref}, write ${written.slice(0, at)}#${ref} or --ref ${ref}.`,
    );
  return { kind: "git", url: pathToFileURL(dir).href, ...(ref ? { ref } : {}), written, bare: true };
}

/** Whether `dir` is a bare git repository (HEAD, objects/ and refs/ at its top), as `git init --bare` makes. */
function isBareRepository(dir: string): boolean {
  return (
    statKind(join(dir, "HEAD")) === "file" &&
    statKind(join(dir, "objects")) === "dir" &&
    statKind(join(dir, "refs")) === "dir"
  );
}

/**
 * A URL written `URL@REF` (the shorthand's form) as `URL#REF`, with that ref, for the message saying it
 * cannot be reached; undefined for anything else (a URL whose only `@` is its user's, `git@host:path`).
 */
export function hashRefForm(written: string): { url: string; ref: string } | undefined {
  if (written.includes("#")) return undefined;
  let path: string;
  if (URL_SCHEME.test(written)) {
    try {
      path = new URL(written).pathname;
    } catch {
      return undefined;
    }
  } else if (SCP_LIKE.test(written)) path = written.slice(written.indexOf(":") + 1);
  else return undefined;
  const at = /@([^@/\s]+)$/.exec(path);
  const ref = at?.[1];
  if (!at || !ref || !written.endsWith(at[0])) return undefined;
  return { url: `${written.slice(0, -at[0].length)}#${ref}`, ref };
}

function statKind(path: string): "dir" | "file" | undefined {
  try {
    return statSync(path).isDirectory() ? "dir" : "file";
  } catch {
    return undefined;
  }
}
