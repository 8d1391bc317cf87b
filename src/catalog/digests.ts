import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { listSkillFiles } from "../sources/skill-files.ts";

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

/** All of one skill: its SKILL.md (or tree node .md) and every file of its folder, by relative path. */
export interface SkillDigests {
  skill_md: FileDigest;
  /** Relative "/" paths, sorted; SKILL.md and nested skills excluded (as load_skill lists them). */
  files: Record<string, FileDigest>;
  /** True when the folder held more files than were digested (`maxFiles`). */
  truncated: boolean;
}

/** Chunk read at a time: a large asset is hashed without being held in memory. */
const CHUNK = 256 * 1024;

/** The digest of bytes or text (UTF-8). Pure. */
export function sha256Of(data: Uint8Array | string): Sha256 {
  return `sha256:${new Bun.CryptoHasher("sha256").update(data).digest("hex")}`;
}

/** The digest and size of a regular file, or undefined when it cannot be read (gone, a folder, no permission). */
export function digestFile(path: string): FileDigest | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const hash = new Bun.CryptoHasher("sha256");
    const buffer = new Uint8Array(CHUNK);
    let size = 0;
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, size);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
      size += n;
    }
    return { digest: `sha256:${hash.digest("hex")}`, size };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Digests of one skill's files. Undefined when its SKILL.md cannot be read
 * (deleted since the scan). Files are those `listSkillFiles` lists: regular
 * files and links that stay inside the skill's real folder.
 */
export function digestSkill(
  skill: { file: string; dir: string; kind: "agent-skill" | "tree-node" },
  maxFiles = 10_000,
): SkillDigests | undefined {
  const main = digestFile(skill.file);
  if (!main) return undefined;
  const listing = listSkillFiles(skill.dir, { max: maxFiles });
  const files: Record<string, FileDigest> = {};
  for (const entry of [...listing.files].sort((a, b) => compareText(a.path, b.path))) {
    const digest = digestFile(join(skill.dir, entry.path));
    if (digest) files[entry.path] = digest;
  }
  return { skill_md: main, files, truncated: listing.truncated };
}

/** Code-unit order: the same on every machine and locale (stable lockfile diffs). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
