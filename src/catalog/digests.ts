import { readSync, type Stats } from "node:fs";
import { realFolder, type SkillPlace } from "../skills/skill-read.ts";
import { listSkillFiles } from "../sources/skill-files.ts";
import { withConfinedFile } from "../util/confined-read.ts";
import { checkRelativePath } from "../util/safe-path.ts";
import { sha256Hex } from "../util/sha256.ts";

/**
 * Content digests of served files: `sha256:<64 hex>`, the form the MCP skills
 * extension (SEP-2640) publishes with each file's size. This module is the one
 * place they are computed, for the extension, the lockfile, `verify` and the
 * frozen mode alike, so that a digest in skillhub.lock always equals the one a
 * client sees.
 */

/** A `sha256:<hex>` digest. */
export type Sha256 = `sha256:${string}`;

export const SHA256 = /^sha256:[0-9a-f]{64}$/;

export interface FileDigest {
  digest: Sha256;
  /** Bytes. */
  size: number;
}

/** All of one skill's files besides its own .md, by relative path, as the one walker lists them. */
export interface SkillDigests {
  /** Relative "/" paths, sorted; SKILL.md and nested skills excluded (sources/skill-files.ts). */
  files: Record<string, FileDigest>;
  /** True when the skill has more files and folders than LOCKED_ENTRIES_MAX: it cannot be locked. */
  truncated: boolean;
  /**
   * What the folder holds that no lock records, relative: version-control metadata, nested skills' folders,
   * FIFOs and devices, links that lead to no file of the skill, folders that could not be read, and files
   * that could not be hashed under their own name.
   */
  unrecorded: string[];
  /**
   * The entries of `unrecorded` that stand among the skill's own files yet no lock can ever record, each
   * with why: FIFOs and devices, links that lead to no file of the skill, folders that could not be listed,
   * files that could not be hashed under their own name. Not version-control metadata nor nested skills'
   * folders, which are no files of the skill (a nested skill is checked as itself).
   */
  unrecordable: Unrecordable[];
}

/** A path in a skill's folder that no lock can record, and why (a clause: "it is a FIFO, socket or device"). */
export interface Unrecordable {
  path: string;
  why: string;
}

/**
 * Most files and folders a lock records for one skill. A skill with more is
 * recorded as too large and never served frozen: hashing it per call would
 * stall the server, and vouching for part of it would vouch for nothing.
 */
export const LOCKED_ENTRIES_MAX = 10_000;

/** Chunk read at a time: a large file is hashed without being held in memory. */
const CHUNK = 256 * 1024;

/** The digest of bytes or text (UTF-8). Pure. */
export function sha256Of(data: Uint8Array | string): Sha256 {
  return `sha256:${sha256Hex(data)}`;
}

/**
 * Digests already computed, by file identity: device and inode, with the size,
 * modification and change times they were computed at. A file written since
 * shows a new size, mtime or ctime (ctime cannot be set back by a user, unlike
 * mtime), and a file replaced by a rename has a new inode: either way it is
 * hashed again. Bounded: the oldest entries are dropped first.
 *
 * Security: a cached digest decides what a skill's files are (the lock,
 * `verify`, the checks before running a script, the skills extension's
 * listing); it never vouches for bytes that are served, which are hashed as
 * they are read.
 */
export class DigestCache {
  private readonly entries = new Map<string, { stamp: string; digest: FileDigest }>();
  private readonly limit: number;
  private readonly now: () => number;

  constructor(options: { limit?: number; now?: () => number } = {}) {
    this.limit = options.limit ?? 50_000;
    this.now = options.now ?? Date.now;
  }

  get(stat: Stats): FileDigest | undefined {
    const hit = this.entries.get(identity(stat));
    return hit && hit.stamp === stamp(stat) ? hit.digest : undefined;
  }

  /**
   * Remember a digest, unless the file changed within RACY_MS: file times are coarse (a few ms), so a
   * second write in the same tick would keep the stamp the first one had. Once that long has passed,
   * any write gives a new stamp (as git treats its "racily clean" entries).
   */
  set(stat: Stats, digest: FileDigest): void {
    if (this.now() - Math.max(stat.mtimeMs, stat.ctimeMs) < RACY_MS) return;
    const key = identity(stat);
    this.entries.delete(key);
    this.entries.set(key, { stamp: stamp(stat), digest });
    if (this.entries.size > this.limit) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}

/** Milliseconds after a file's last change before its digest is cached (see DigestCache.set). */
const RACY_MS = 2000;

function identity(stat: Stats): string {
  return `${stat.dev}:${stat.ino}`;
}

function stamp(stat: Stats): string {
  return `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
}

/** The process's digest cache (a running server's checks, a CLI command's lock). */
export const digestCache = new DigestCache();

/**
 * The digest and size of one file of a skill, `rel` under the real folder
 * `root`: opened through the confined reader (inside the folder, a regular
 * file, opened without blocking, so a FIFO or a device in a file's place is
 * never waited on), hashed from that descriptor. Undefined when it cannot be
 * read (gone, not a regular file, outside the folder, no permission).
 */
export function digestFile(root: string, rel: string, cache: DigestCache = digestCache): FileDigest | undefined {
  const result = withConfinedFile(
    { root, rootIsReal: true, file: rel, overflow: "truncate", maxBytes: Number.MAX_SAFE_INTEGER },
    (fd, stat) => {
      const known = cache.get(stat);
      if (known) return known;
      const hash = new Bun.CryptoHasher("sha256");
      const buffer = new Uint8Array(CHUNK);
      let size = 0;
      for (;;) {
        const n = readSync(fd, buffer, 0, CHUNK, size);
        if (n === 0) break;
        hash.update(buffer.subarray(0, n));
        size += n;
      }
      const digest: FileDigest = { digest: `sha256:${hash.digest("hex")}`, size };
      // Only a file that did not change while it was read is remembered.
      if (size === stat.size) cache.set(stat, digest);
      return digest;
    },
  );
  return "ok" in result ? undefined : result;
}

/**
 * Digests of one skill's files (the one walker's list, sources/skill-files.ts),
 * at most LOCKED_ENTRIES_MAX of them; `truncated` when it has more. A file that
 * cannot be hashed under its own name is left out of `files` and named in
 * `unrecorded`. The folder walked is the one every read of the skill is
 * confined to (skill-read.ts realFolder); a skill without one (gone, or a tree
 * node's resource folder that links out of its node's folder) has no files.
 *
 * Security: the lock records what would be served, and nothing else: the names
 * and digests of files under a folder that links out (`x/ -> ~/.ssh`) would go
 * into a lock its user commits and pushes.
 */
export function digestSkill(skill: SkillPlace, options: { max?: number; cache?: DigestCache } = {}): SkillDigests {
  // Without a prototype: a file named `__proto__` is a key like any other (a plain object's setter drops it).
  const files: Record<string, FileDigest> = Object.create(null);
  const folder = realFolder(skill.dir, skill);
  if (!folder.ok) return { files, truncated: false, unrecorded: [], unrecordable: [] };
  // Walked by its real path: the listing and the digests read the one folder realFolder decided.
  const root = folder.root;
  const listing = listSkillFiles(root, {
    max: options.max ?? LOCKED_ENTRIES_MAX,
    realDir: root,
    ownSkillFile: skill.kind !== "tree-node",
  });
  const listed = new Set(listing.files.map((f) => f.path));
  const unrecordable: Unrecordable[] = [
    ...listing.specials.map((path) => ({ path, why: "it is a FIFO, socket or device, not a file SkillHub reads" })),
    ...listing.links
      .filter((path) => !listed.has(path) && !listing.folderLinks.includes(path))
      .map((path) => ({ path, why: "it is a link that leads to no file inside the skill's folder" })),
    ...listing.unreadable.map((path) => ({ path, why: "it is a folder SkillHub cannot list" })),
    ...listing.unnamed.map((path) => ({
      path,
      why: "its name is not UTF-8, or reads the same as the name of another entry of its folder that is not, so SkillHub cannot open it by name",
    })),
  ];
  const result = (truncated: boolean): SkillDigests => ({
    files,
    truncated,
    unrecorded: [...listing.skipped, ...unrecordable.map((u) => u.path)],
    unrecordable,
  });
  if (listing.truncated) return result(true);
  for (const entry of [...listing.files].sort((a, b) => compareText(a.path, b.path))) {
    // Security: a name the confined reader takes for another file (`x ` for `x`, `a\b` for `a/b`) or refuses
    // (`c:x`) would record another file's digest, or none, as would an unreadable file; yet a process in the
    // folder opens it by its name. So it is unrecordable: no lock vouches for it, and no code runs beside it.
    const unnamed = unopenedName(entry.path);
    const digest = unnamed ? undefined : digestFile(root, entry.path, options.cache);
    if (digest) files[entry.path] = digest;
    else
      unrecordable.push({
        path: entry.path,
        why: unnamed ?? "SkillHub cannot read it (no permission, or it is no regular file now)",
      });
  }
  return result(false);
}

/**
 * Why SkillHub cannot open the file at `path` (a walker's "/" path) by that very name, or undefined when it can.
 * Pure.
 */
export function unopenedName(path: string): string | undefined {
  const named = checkRelativePath(path);
  if (named.ok && named.path === path) return undefined;
  if (path.includes("\\")) return "its name holds a backslash, which SkillHub reads as a folder separator";
  if (/^[A-Za-z]:/.test(path.trim())) return "its name starts with a drive letter, which SkillHub refuses to open";
  if (path !== path.trim()) return "its path begins or ends with white space, which SkillHub trims";
  return `SkillHub cannot open it by that name (the name ${named.ok ? "reads as another path" : named.reason})`;
}

/** Code-unit order: the same on every machine and locale (stable lockfile diffs). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
