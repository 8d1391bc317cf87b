import { dirname, isAbsolute, resolve, sep } from "node:path";
import { isProjectCandidate } from "../sources/project-root.ts";
import { isInside, realOr } from "../util/safe-path.ts";
import { statOf } from "../util/stat.ts";

/** `unconfined`: the client may name no folder at all (no project to confine it to), only leave cwd out. */
export type WorkingDir = { ok: true; dir: string } | { ok: false; reason: string; unconfined?: true };

const MAX_PATH_CHARS = 4096;

/**
 * run_script's `cwd`: absent → `base` (the project root, else
 * the server's working folder); relative → resolved against `base`; absolute
 * → as given. It must be an existing folder: a script must not silently run
 * somewhere else than asked. It need not be inside the skill: scripts work on
 * the user's project.
 *
 * Security: a `remote` client (on another machine, over HTTP) names a folder of
 * the server's project, relative to `base`, and one that stays inside it once
 * links are followed: it has no business running code elsewhere on the server,
 * nor learning which of the server's other folders exist. Without a project
 * (none found, or `base` is no folder to confine it to: see confinesRemote), it names none.
 */
export function resolveWorkingDir(
  input: string | undefined,
  base: string,
  remote?: { project: boolean; home: string },
  quote: (text: string) => string = (text) => `'${text}'`,
): WorkingDir {
  if (input === undefined || input.trim() === "") return existingDir(base, "the default working folder");
  // Security: a NUL byte would cut the path short in the kernel's chdir; no folder's path is longer than
  // PATH_MAX, and a longer one would cost every step up it below.
  if (input.includes("\0")) return { ok: false, reason: "cwd contains a NUL byte" };
  if (input.length > MAX_PATH_CHARS) return { ok: false, reason: `cwd is longer than ${MAX_PATH_CHARS} characters` };
  const asked = `cwd ${quote(input)}`;
  // An absolute cwd is named once; a relative one with the folder it names.
  if (!remote) return existingDir(isAbsolute(input) ? resolve(input) : resolve(base, input), asked, !isAbsolute(input));
  if (!remote.project || !confinesRemote(base, remote.home))
    return {
      ok: false,
      reason: `${asked} cannot be used: this server has no project folder to run scripts in`,
      unconfined: true,
    };
  const outside = {
    ok: false,
    reason: `${asked} is not a folder of the server's project: a client on another machine gives one relative to the project root`,
  } as const;
  const dir = resolve(base, input);
  if (isAbsolute(input) || /^[A-Za-z]:/.test(input) || !isInside(resolve(base), dir)) return outside;
  // Where the path leads is judged on its nearest existing folder before anything else is said of it, and
  // the script runs in the real folder: a link swapped afterwards changes nothing.
  const root = realOr(base);
  let known = dir;
  while (known !== base && statOf(known) === undefined) known = dirname(known);
  if (!isInside(root, realOr(known))) return outside;
  const found = existingDir(dir, asked, true);
  if (!found.ok) return found;
  const real = realOr(dir);
  return isInside(root, real) ? { ok: true, dir: real } : outside;
}

/** A user's home by where homes are kept: `/home/<user>`, `/Users/<user>`, `C:\\Users\\<user>`. */
const USER_HOME = /^(?:\/home|\/Users|[A-Za-z]:\\Users)[\\/][^\\/]+[\\/]?$/i;

/**
 * Security: whether a client on another machine may be confined to `root`: not `/`, a system folder, a
 * user's home or a folder holding the server's (`/home`), where a cwd would reach every file of the
 * user, or of all of them. Judged on the path as given and on its real path alike, so a project root
 * that is a link to a home (or to `/home`) confines nothing either.
 */
export function confinesRemote(root: string, home: string, platform: string = process.platform): boolean {
  // Windows names folders case-insensitively: `c:\users` holds `C:\Users\ana`.
  const fold = (path: string) => (platform === "win32" ? path.toLowerCase() : path);
  const homes = home === "" ? [] : [resolve(home), realOr(resolve(home))].map(fold);
  // The home is judged below, real path too; `sep` stands for an unknown one (resolve("") is the working folder).
  return [resolve(root), realOr(resolve(root))].every(
    (dir) => isProjectCandidate(dir, home || sep) && !USER_HOME.test(dir) && !homes.some((h) => isInside(fold(dir), h)),
  );
}

/** `dir` when it is an existing folder; else why not, naming it as `what` (and by its path when `withPath`). */
function existingDir(dir: string, what: string, withPath = true): WorkingDir {
  const named = withPath ? `${what} (${dir})` : what;
  const stat = statOf(dir);
  if (!stat) return { ok: false, reason: `${named} does not exist` };
  if (!stat.isDirectory()) return { ok: false, reason: `${named} is not a folder` };
  return { ok: true, dir };
}
