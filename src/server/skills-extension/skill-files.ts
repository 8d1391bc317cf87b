import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { SKILL_LIMITS } from "@modelcontextprotocol/server/ext/skills";
import { readConfined } from "../../util/confined-read.ts";

/** One file of a skill folder: its path under the folder (`/`-separated) and its size. */
export interface SkillFileRef {
  path: string;
  size: number;
}

/** A walk of a skill folder: its files, or why it stopped. */
export type SkillWalk = { kind: "ok"; files: SkillFileRef[]; dirs: string[] } | { kind: "refused"; reason: string };

/** Folders that are never part of a skill's content (version control, dependency caches). */
const SKIPPED_DIRS = new Set([".git", "node_modules", "__pycache__"]);

/**
 * Every regular file under `dir`, sorted, stopping as soon as the walk passes
 * `maxFiles` or `maxBytes` (a skill past the limits is not read to the end).
 * Security: symlinks are not followed, and a skill that holds one is refused
 * (its content could be anywhere on the machine); so is any special file.
 */
export function walkSkillFolder(dir: string, limits: { maxFiles: number; maxBytes: number }): SkillWalk {
  const files: SkillFileRef[] = [];
  const dirs: string[] = [];
  let bytes = 0;
  const stack = [""];
  while (stack.length > 0) {
    const rel = stack.pop() as string;
    let entries: string[];
    try {
      entries = readdirSync(join(dir, rel)).sort();
    } catch (error) {
      return { kind: "refused", reason: `folder ${rel || "."} cannot be read (${(error as Error).message})` };
    }
    for (const name of entries) {
      const path = rel ? `${rel}/${name}` : name;
      const stat = lstatSync(join(dir, path));
      if (stat.isSymbolicLink()) return { kind: "refused", reason: `${path} is a symlink; copy the file instead` };
      if (stat.isDirectory()) {
        if (SKIPPED_DIRS.has(name)) continue;
        dirs.push(path);
        stack.push(path);
        continue;
      }
      if (!stat.isFile()) return { kind: "refused", reason: `${path} is not a regular file` };
      files.push({ path, size: stat.size });
      bytes += stat.size;
      if (files.length > limits.maxFiles)
        return {
          kind: "refused",
          reason: `it has more than ${limits.maxFiles} files (the extension's limit per skill)`,
        };
      if (bytes > limits.maxBytes)
        return {
          kind: "refused",
          reason: `its files total more than ${limits.maxBytes} bytes (16 MiB, the extension's limit per skill)`,
        };
    }
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { kind: "ok", files, dirs: dirs.sort() };
}

/**
 * THE read of the skills extension: every byte it serves or digests comes
 * through here (one place to confine and bound reads). `path` is a
 * `/`-separated path under the skill folder `dir`, taken from a walk, never
 * from a client. Security: a path that climbs out is refused even so.
 */
export function readSkillFile(dir: string, path: string): Uint8Array {
  // Security: the one confined reader of everything served: the opened file's real path must stay in the
  // skill's real folder, a regular file opened without blocking, read once, within the spec's 16 MiB.
  const read = readConfined({ root: dir, file: path, maxBytes: SKILL_LIMITS.bytes });
  if (!read.ok) throw new Error(`${read.code}: ${read.reason}`);
  return read.bytes;
}
