import { createHash } from "node:crypto";

/**
 * The SEP-2640 digest of a file's raw bytes: `sha256:` and 64 lowercase hex
 * digits. The one place SkillHub computes a skill file's digest (the lockfile
 * uses the same format), so both always agree.
 */
export function fileDigest(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}
