import { type BigIntStats, existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { readNamedText } from "../../util/named-file.ts";
import { scrubUrlCredentials } from "../../util/url-credentials.ts";
import { configEntries } from "./git-config-file.ts";
import { elsewhereFile, foreignKeys, foreignSettingsWhy } from "./git-copy-guard.ts";
import { sameRepository } from "./git-url.ts";

/**
 * Whose copy a repository copy is: the repository its clone recorded as `origin` in the copy's own
 * `.git/config`, read from the file (no git is started: a server asks it of every copy it serves, at
 * start and at each rescan).
 *
 * Security: a copy's folder name does not make it the configured repository's. An earlier version gave
 * two repositories one folder name, and whoever can write the folder can write its `.git/config`. A copy
 * whose origin is another repository (sameRepository), or that records none, is never served, listed,
 * locked or verified as the configured entry: the sync clones it again (git-repo.ts), and every reader of a
 * copy (GitSync.sources and status, the repositories' config.yaml) asks this same question.
 */

/** A copy that is not the configured repository's. */
export interface ForeignCopy {
  /** The origin the copy records (credentials removed); undefined when it records none that can be read. */
  found?: string;
  /** Why, in words: a clause that follows "the copy in DIR is not served:". */
  why: string;
}

/** Largest `.git/config` read: SkillHub's clone writes a few hundred bytes. */
const MAX_GIT_CONFIG_BYTES = 65_536;

/**
 * The last verdict on each copy folder, for its configured URL, with the identity of the `.git/config` it was
 * read from (inode, size, modification and change times): the file is read again once any of them changes.
 * Security: an edit or a rename sets the change time, which only the kernel sets. A verdict is kept only for a
 * file whose change time was over a second old when it was read (as git treats its index's racily clean
 * entries): an edit after that read, even within the same tick of the file system's clock, changes the stamp.
 */
const verdicts = new Map<string, { stamp: string; url: string; verdict: ForeignCopy | undefined }>();

/** Most copy folders whose verdict is kept (a server has a few dozen copies at most). */
const MAX_VERDICTS = 1024;

/** How old, in nanoseconds, a file's change time must be when it is read for its verdict to be kept. */
const SETTLED_NS = 1_000_000_000n;

/**
 * Why the copy in `dir` is not a copy of the repository `url` names, or undefined when it is (its origin,
 * however spelt, is that repository) or when there is no copy at all. A folder there without a readable
 * `.git/config`, one whose config holds a setting SkillHub's clone does not write (foreignKeys: an include,
 * a `url.*.insteadOf`…) or that has a `.git/commondir`, or one whose `remote.origin.url` is missing, empty,
 * another repository's or another spelling holding a character outside printable ASCII, is not.
 * `now` is the clock the file's change time is compared with (ms since the epoch).
 */
export function foreignCopy(dir: string, url: string, now: () => number = Date.now): ForeignCopy | undefined {
  if (!existsSync(dir)) return undefined;
  const file = join(dir, ".git", "config");
  // Security: the copy's own file, as the sync's check wants it (git-copy-guard.ts): neither its .git nor
  // the file a link, which could lead to another repository's.
  const folder = lstatOf(join(dir, ".git"));
  const stat = lstatOf(file);
  if (folder?.isSymbolicLink() || stat?.isSymbolicLink())
    return { why: `its .git/config cannot be read (${folder?.isSymbolicLink() ? join(dir, ".git") : file} is a link)` };
  // Security: with a .git/commondir, git reads another folder's config, whose origin is not the one read here.
  // Looked at on every call: the file's arrival does not change the config's stamp.
  const elsewhere = elsewhereFile(dir);
  if (elsewhere) return { why: elsewhere };
  const stamp = stat?.isFile() ? `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}` : undefined;
  const known = verdicts.get(dir);
  if (stamp !== undefined && known?.stamp === stamp && known.url === url) return known.verdict;
  const settled = stat !== undefined && stat.ctimeNs < BigInt(Math.floor(now())) * 1_000_000n - SETTLED_NS;
  const verdict = readVerdict(file, url);
  if (stamp !== undefined && settled) {
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    verdicts.set(dir, { stamp, url, verdict });
  }
  return verdict;
}

/** foreignCopy's verdict from the file `file` (a copy's .git/config) itself. */
function readVerdict(file: string, url: string): ForeignCopy | undefined {
  // Bounded: a FIFO is not waited on.
  const read = readNamedText({ path: file, maxBytes: MAX_GIT_CONFIG_BYTES });
  if (!read.ok)
    return {
      why: read.missing
        ? "it is no git copy (it has no .git/config)"
        : `its .git/config cannot be read (${read.reason})`,
    };
  const entries = configEntries(read.text);
  if (entries === undefined) return { why: "its .git/config is not one git can read" };
  // Security: git reads the origin through an include, or rewrites it with `url.*.insteadOf`: the origin
  // read here would not be the one git fetches from.
  const settings = foreignSettingsWhy(foreignKeys(entries));
  if (settings) return { why: settings };
  // git fetches from the first `url` (more are where a push goes too). Its value as git reads it: git drops
  // the blanks around it (configEntries), and nothing more.
  const origin = entries.find((entry) => entry.key === "remote.origin.url")?.value;
  if (!origin) return { why: `it records no origin, so nothing says it is a copy of ${url}` };
  if (origin === url) return undefined;
  // Security: git keeps a no-break or ideographic space, a vertical tab, a line break, an invisible format
  // character (and, quoted, a space at either end) as part of the URL, where JavaScript's trim, the
  // repository's identity and a reader's eye would drop or not see them: `…/team.git\u3000` is another path
  // than `…/team.git`. Another spelling is taken only without them; a space inside and letters of any script
  // (`/srv/équipe dir/team.git`) are a path's own.
  if (UNSEEN.test(origin)) {
    const found = scrubUrlCredentials(origin).replace(UNSEEN_ALL, (chars) => chars.split("").map(escaped).join(""));
    return {
      found,
      why: `its origin ${found} holds a control or format character or a blank other than an inner space, so it is not taken for the configured ${url}`,
    };
  }
  if (sameRepository(origin, url)) return undefined;
  const found = scrubUrlCredentials(origin);
  return { found, why: `its origin is ${found}, another repository than the configured ${url}` };
}

/**
 * What no spelling of a repository's URL holds: a control character (\p{Cc}: line breaks, tabs, \v, \f), a
 * format character (\p{Cf}: zero-width and direction marks), a blank other than U+0020 (U+00A0, U+3000,
 * U+2028) and a space at either end.
 */
const UNSEEN = /[\p{Cc}\p{Cf}]|(?! )\p{White_Space}|^ | $/u;
/** UNSEEN's characters, each run of them: what an origin is shown with as `\uXXXX`. */
const UNSEEN_ALL = /[\p{Cc}\p{Cf}]|(?! )\p{White_Space}|^ +| +$/gu;

/** A UTF-16 unit as `\uXXXX`, so that an odd blank or a line break in an origin is seen, and adds no line. */
function escaped(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/** `path`'s own status (a link's, not its target's), in nanoseconds; undefined when it cannot be looked at. */
function lstatOf(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    // Not a folder on the way (a .git file): reading it says why.
    return undefined;
  }
}
