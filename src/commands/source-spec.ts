import { statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { SkillHubError } from "../util/errors.ts";

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
 * local folder; a URL (https://, ssh://, git://, file://, user@host:path) is a git repository, with
 * `#REF` for a ref, and a GitHub folder page (…/tree/REF/PATH) read as its repository, ref and
 * folder; `owner/repo[/path][@ref]` is a GitHub repository. Throws SourceError.
 */
export function parseSource(text: string, ctx: SourceContext): SourceSpec {
  const written = text.trim();
  if (written === "") throw new SourceError("name a source: a git URL, owner/repo (GitHub) or a folder.");
  if (written.startsWith("-"))
    throw new SourceError(`'${written}' is not a source; if it is a folder, write ./${written}.`);
  const local = localFolder(written, ctx);
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
  const expanded = text === "~" ? ctx.homeDir : text.startsWith("~/") ? join(ctx.homeDir, text.slice(2)) : text;
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

function statKind(path: string): "dir" | "file" | undefined {
  try {
    return statSync(path).isDirectory() ? "dir" : "file";
  } catch {
    return undefined;
  }
}
