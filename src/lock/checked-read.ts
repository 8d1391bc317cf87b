import type { Catalog } from "../catalog/catalog.ts";
import { renderSections, resolveTreeSections } from "../catalog/tree-content.ts";
import { skillBody } from "../skills/agent-skill.ts";
import type { Skill } from "../skills/skill.ts";
import { readSkillSource } from "../skills/skill-read.ts";
import { type ConfinedFailure, type ConfinedReadOptions, fail, readConfined } from "../util/confined-read.ts";
import { readConfinedChunks } from "../util/confined-stream.ts";
import { SkillHubError } from "../util/errors.ts";
import type { FrozenGuard, FrozenRefusal } from "./frozen.ts";

/**
 * The reads that serve a skill's bytes, checked in frozen mode: each file is
 * read once, its digest computed over the very bytes read, and those bytes
 * are returned only when the lock records that digest for that file. There is
 * no second read by name, so a file swapped between the check and the answer
 * (an atomic rename) can only be refused, never served. Without a guard (not
 * frozen) they are plain confined reads.
 */

/** The lock refused what was read: nothing of it may be served. */
export interface Refused {
  ok: false;
  refused: FrozenRefusal;
}

export type CheckedText = { ok: true; text: string } | ConfinedFailure | Refused;

/** Largest file a frozen server hashes to serve part of it (read_skill_file serves its start). */
export const FROZEN_READ_MAX_BYTES = 16 * 1024 * 1024;

export function isRefused(read: { ok: boolean }): read is Refused {
  return !read.ok && "refused" in read;
}

/** A skill's own file (SKILL.md, a tree node's .md) as text, BOM removed, checked against the lock. */
export function checkedSkillText(frozen: FrozenGuard | undefined, skill: Skill): CheckedText {
  const read = readSkillSource(skill);
  if (!read.ok) return read;
  const refused = frozen?.checkRead(skill, null, read.sha256);
  return refused ? { ok: false, refused } : { ok: true, text: read.text };
}

/**
 * What a skill tells an agent to do: an Agent Skill's body, a tree node's inherited content (every
 * node of it checked; one refused refuses the whole), or why it cannot be served.
 */
export function checkedInstructions(frozen: FrozenGuard | undefined, catalog: Catalog, skill: Skill): CheckedText {
  if (skill.kind !== "tree-node") {
    const read = checkedSkillText(frozen, skill);
    return read.ok ? { ok: true, text: skillBody(read.text) } : read;
  }
  const resolved = checkedSections(frozen, catalog, skill);
  return resolved.ok ? { ok: true, text: renderSections(resolved) } : resolved;
}

/** resolveTreeSections (catalog/tree-content.ts) with every node's file read once and checked. */
export function checkedSections(
  frozen: FrozenGuard | undefined,
  catalog: Catalog,
  skill: Skill,
): ({ ok: true } & ReturnType<typeof resolveTreeSections>) | ConfinedFailure | Refused {
  let refused: FrozenRefusal | undefined;
  try {
    const resolved = resolveTreeSections(catalog, skill, (node) => {
      const read = checkedSkillText(frozen, node);
      if (read.ok) return read.text;
      if (isRefused(read)) {
        refused ??= read.refused;
        throw new SkillHubError(read.refused.code, read.refused.message);
      }
      throw new SkillHubError(read.code, read.reason);
    });
    // An ancestor refused is left out by the resolver like an unreadable one; frozen, it refuses the node.
    return refused ? { ok: false, refused } : { ok: true, ...resolved };
  } catch (error) {
    if (refused) return { ok: false, refused };
    if (error instanceof SkillHubError)
      return { ok: false, code: error.code as ConfinedFailure["code"], reason: error.message };
    throw error;
  }
}

/** A skill's body without frontmatter (listings, excerpts, the web page), or undefined when it cannot be served. */
export function checkedBody(frozen: FrozenGuard | undefined, skill: Skill): string | undefined {
  const read = checkedSkillText(frozen, skill);
  return read.ok ? skillBody(read.text) : undefined;
}

export interface CheckedFile {
  ok: true;
  /** At most `maxBytes` of the file's start: a prefix of the bytes that were hashed. */
  bytes: Buffer;
  /** The whole file's size. */
  size: number;
  truncated: boolean;
  /** Real path of the opened file. */
  real: string;
}

/**
 * One file of a skill (`file`, a normalised "/" path under `owner`'s real folder `root`), confined,
 * regular, opened without blocking. At most `maxBytes` are returned: `overflow` "truncate" serves a
 * longer file's start, "refuse" answers FILE_TOO_LARGE. Frozen, the whole file is hashed as it is read
 * (up to FROZEN_READ_MAX_BYTES) and what is returned is the start of those very bytes, once the lock
 * lists the file with their digest.
 */
export function checkedFileRead(
  frozen: FrozenGuard | undefined,
  owner: Skill,
  root: string,
  file: string,
  maxBytes: number,
  overflow: "truncate" | "refuse",
  hooks: Pick<ConfinedReadOptions, "now" | "beforeRead" | "onRead"> = {},
): CheckedFile | ConfinedFailure | Refused {
  if (!frozen) {
    const read = readConfined({ root, rootIsReal: true, file, maxBytes, overflow, ...hooks });
    return read.ok
      ? { ok: true, bytes: read.bytes, size: read.size, truncated: read.truncated, real: read.real }
      : read;
  }
  const hash = new Bun.CryptoHasher("sha256");
  const kept = Buffer.alloc(Math.min(maxBytes, FROZEN_READ_MAX_BYTES));
  let filled = 0;
  const options = { root, rootIsReal: true, file, maxBytes: FROZEN_READ_MAX_BYTES, ...hooks };
  const read = readConfinedChunks(options, (chunk) => {
    hash.update(chunk);
    const part = chunk.subarray(0, kept.length - filled);
    kept.set(part, filled);
    filled += part.length;
    return true;
  });
  if (!read.ok) return read;
  // Security: a file is served frozen only when all of it was hashed, so no unhashed byte can follow.
  if (read.size > read.read)
    return fail(
      "FILE_TOO_LARGE",
      `'${file}' is ${read.size} bytes; a frozen server checks files of at most ${FROZEN_READ_MAX_BYTES} bytes against its lock.`,
    );
  if (overflow === "refuse" && read.read > maxBytes)
    return { ...fail("FILE_TOO_LARGE", `'${file}' is ${read.read} bytes; the limit is ${maxBytes}.`), size: read.read };
  const refused = frozen.checkRead(owner, file, hash.digest("hex"));
  if (refused) return { ok: false, refused };
  return { ok: true, bytes: kept.subarray(0, filled), size: read.read, truncated: read.read > filled, real: read.real };
}
