import { sha256Of } from "../../catalog/digests.ts";

/**
 * The SEP-2640 digest of a file's raw bytes: `sha256:` and 64 lowercase hex
 * digits. The lockfile's digest function (catalog/digests.ts) computes it, so
 * what the extension publishes and what skillhub.lock records always agree.
 */
export function fileDigest(bytes: Uint8Array): string {
  return sha256Of(bytes);
}
