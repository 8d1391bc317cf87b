import { isAbsolute, resolve } from "node:path";
import { statOf } from "../util/stat.ts";

export type WorkingDir = { ok: true; dir: string } | { ok: false; reason: string };

/**
 * run_script's `cwd`: absent → `base` (the project root, else
 * the server's working folder); relative → resolved against `base`; absolute
 * → as given. It must be an existing folder: a script must not silently run
 * somewhere else than asked. It need not be inside the skill: scripts work on
 * the user's project.
 */
export function resolveWorkingDir(input: string | undefined, base: string): WorkingDir {
  if (input === undefined || input.trim() === "") return existingDir(base, "the default working folder");
  // Security: a NUL byte would cut the path short in the kernel's chdir.
  if (input.includes("\0")) return { ok: false, reason: "cwd contains a NUL byte" };
  const dir = isAbsolute(input) ? resolve(input) : resolve(base, input);
  return existingDir(dir, `cwd '${input}'`);
}

function existingDir(dir: string, what: string): WorkingDir {
  const stat = statOf(dir);
  if (!stat) return { ok: false, reason: `${what} (${dir}) does not exist` };
  if (!stat.isDirectory()) return { ok: false, reason: `${what} (${dir}) is not a folder` };
  return { ok: true, dir };
}
