import { SKILL_LIMITS } from "@modelcontextprotocol/server/ext/skills";
import { readConfined } from "../../util/confined-read.ts";
import { SkillHubError } from "../../util/errors.ts";

/**
 * THE read of the skills extension: every byte it serves comes
 * through here (one place to confine and bound reads). `path` is a
 * `/`-separated path under the skill folder `dir`, taken from a walk, never
 * from a client. Security: a path that climbs out is refused even so.
 */
export function readSkillFile(dir: string, path: string): Uint8Array {
  // Security: the one confined reader of everything served: the opened file's real path must stay in the
  // skill's real folder, a regular file opened without blocking, read once, within the spec's 16 MiB.
  const read = readConfined({ root: dir, file: path, maxBytes: SKILL_LIMITS.bytes });
  if (!read.ok) throw new SkillHubError(read.code, read.reason);
  return read.bytes;
}
