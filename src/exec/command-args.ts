import { lstatSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { isVersionControl, trimDotsAndSpaces } from "../sources/skill-files.ts";
import { errnoCode, errorMessage } from "../util/errors.ts";
import { isInside } from "../util/safe-path.ts";
import { statOf } from "../util/stat.ts";

/**
 * Checks on what run_skill_command is asked to run: the command must be a
 * bare allow-listed name, and arguments that are file paths must stay inside
 * the skill's folder. Pure apart from `realpath`/`exists`, which are injectable.
 */

export type ArgCheck = { ok: true } | { ok: false; reason: string };

/**
 * A bare command name ("python", "ls"), or why not.
 *
 * Security: the allow-list holds names, so anything that is a path —
 * "/bin/sh", "./x", "../x", "bin/x", "C:\\x" — is refused before the list is
 * consulted: otherwise "./python" (a file the skill ships) or "/tmp/ls" would
 * pass for an allowed name.
 */
export function checkCommandName(command: string): ArgCheck {
  if (command.includes("\0")) return { ok: false, reason: "contains a NUL byte" };
  if (command.trim() !== command || command === "")
    return { ok: false, reason: "must be a bare command name without spaces around it" };
  if (/[\\/]/.test(command) || /^[A-Za-z]:/.test(command))
    return { ok: false, reason: "is a path; give a bare command name from the allow-list (e.g. python, ls)" };
  if (command === "." || command === "..") return { ok: false, reason: "is not a command name" };
  return { ok: true };
}

export interface PathCheckIo {
  realpath?: (path: string) => string;
  /** Whether the path exists; default lstat, so a dangling symlink counts. */
  exists?: (path: string) => boolean;
}

/**
 * The first argument that reaches outside `skillDir`, or ok. What is checked
 * (the command resolves its arguments against the skill's folder, its cwd):
 * - every argument, and the value of `--option=value`;
 * - what follows every `=` and `@` in an argument (`dd if=/etc/passwd`, `awk -v f=…`, `curl -d @file`,
 *   `-F x=@file`, `-F x=<file`, `gcc @file`), and what follows every `file:` (a URL), %-escapes decoded;
 * - absolute paths ("/etc/passwd", "C:\\x", "\\\\host\\share") are refused;
 * - a ".." segment anywhere ("../x", "a/../../b") is refused, even when it would come back in;
 * - an argument naming something that exists (or whose nearest existing parent exists) under
 *   the skill's folder must resolve, symlinks followed, inside the skill's real folder.
 * - a value glued to short options (`-f/etc/passwd`, `-rfsub/link`, `-5f/etc/passwd`): where the option
 *   letters and digits end is the command's business, so every place the value could start is checked.
 * Not checked: text inside an argument (`python -c "open('/etc/x')"`), or what an interpreter does at
 * run time — allow-listing an interpreter trusts it.
 */
export function checkPathArgs(args: readonly string[], skillDir: string, io: PathCheckIo = {}): ArgCheck {
  const realpath = io.realpath ?? realpathSync;
  const exists = io.exists ?? lexists;
  let base: string;
  try {
    base = realpath(skillDir);
  } catch {
    return { ok: false, reason: `the skill's folder ${skillDir} does not exist` };
  }
  for (const arg of args) {
    // Security: a NUL byte would cut the argument short in the kernel's exec call.
    if (arg.includes("\0")) return { ok: false, reason: `argument ${JSON.stringify(arg)} contains a NUL byte` };
    // The places a path may start share everything after their first separator: judged once.
    const names = new Map<string, string | undefined>();
    for (const { text, hint } of pathCandidates(arg)) {
      const problem = pathProblem(text, skillDir, base, realpath, exists, names);
      if (problem) return { ok: false, reason: `argument '${arg}' ${problem}${hint}` };
    }
  }
  return { ok: true };
}

const GLUED = " (a value glued to a short option counts as a path: give it as its own argument)";
const AFTER_SIGN =
  " (what follows '=' or '@' counts as a path: give a path inside the skill's folder, or, for text that is no path, write [=] or [@] in a pattern and %2F for / in a URL)";
const FILE_URL = " (a file: URL counts as a path: give the file's path relative to the skill's folder, without file:)";

/** A text in an argument that a command may take for a path, and what to tell the model when it is refused. */
interface Candidate {
  text: string;
  hint: string;
}

/**
 * What in `arg` a command may take for a path: a plain argument itself; the value of `--option=value`;
 * after `-` and a run of option letters and digits, every place the value may start (`-rfsub/x` is
 * `-r -f sub/x` to grep; `-rf/x` is `-r -f /x`). Security: a digit is an option as well as a letter
 * (grep's `-5` asks for 5 lines of context): `grep -a5f/etc/passwd` reads its patterns from /etc/passwd.
 *
 * Security: what follows every `=` and every `@`, wherever it is. `name=value` is a path to dd (`if=`,
 * `of=`), make and awk (`-v f=…`); `@file` is one to curl (`-d @file`, `-F x=@file`, `--data-urlencode
 * name@file`) and to gcc (a response file); `=<file` sends a file's content with curl's `-F`. Every `=`
 * and not the first only: a value may itself be `name=value` (gawk's `--assign=f=/etc/passwd`), and
 * which `=` a program splits at is its business, as where glued option letters end is. A pattern that
 * merely holds `=` or `@` passes: only what follows them is judged, as any path is.
 *
 * Security: what follows every `file:` (any case, wherever it starts: `url=file:…`, `-ufile:…`,
 * `<URL:file:…>`, `jar:file:…`) is the path of a `file:` URL, which curl, git and Python's urllib open.
 * Every standard one is absolute (`file:/p`, `file:///p`, `file://host/p`) and refused as absolute paths
 * are; Python also opens a relative one (`file:x`) from its working folder, which is judged as a path
 * after its %-escapes are decoded (`file:%2e%2e/x` is `../x`), whole and cut at `?` or `#` (curl drops
 * a query, Python keeps it). `file:` before text that is no such path (`file: x`, `Makefile:12`) passes.
 *
 * Every place is found in a pass over `arg`; the names they share after their first separator are judged
 * once (`names`).
 */
function pathCandidates(arg: string): Candidate[] {
  const found: Candidate[] = [];
  if (!arg.startsWith("-")) found.push({ text: arg, hint: "" });
  // First, so that a URL glued to an option (`-ufile:///x`) is refused with the words for a URL.
  for (const url of arg.matchAll(/file:/gi)) {
    const path = percentDecoded(arg.slice(url.index + url[0].length));
    found.push({ text: path, hint: FILE_URL });
    const query = path.search(/[?#]/);
    if (query >= 0) found.push({ text: path.slice(0, query), hint: FILE_URL });
  }
  if (arg.startsWith("-") && !arg.startsWith("--")) {
    const letters = /^-[A-Za-z0-9]*/.exec(arg)?.[0].length ?? 1;
    for (let i = 2; i <= letters && i < arg.length; i++) found.push({ text: arg.slice(i), hint: GLUED });
  }
  for (let i = 0; i < arg.length; i++) {
    if (arg[i] !== "=" && arg[i] !== "@") continue;
    found.push({ text: arg.slice(i + 1), hint: AFTER_SIGN });
    if (arg[i] === "=" && arg[i + 1] === "<") found.push({ text: arg.slice(i + 2), hint: AFTER_SIGN });
  }
  return found;
}

/** `text` with its %-escapes decoded, as a URL's path is: UTF-8, a byte that is none becoming U+FFFD (as in
 * Python's `unquote`); a `%` without two hex digits stays as it is. */
function percentDecoded(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replaceAll("%", ""), "hex").toString("utf8"));
}

/** Whether `path` is neither a regular file nor a folder (stat never blocks, even on a FIFO). */
function isSpecial(path: string): boolean {
  const stat = statOf(path);
  return stat !== undefined && !stat.isFile() && !stat.isDirectory();
}

/**
 * Whether the path itself exists, a dangling symlink included; false when it or a folder above is missing
 * (or a file). Security: any other failure (no permission, a link loop, a name too long) is thrown, and
 * the argument refused: what cannot be checked might lead anywhere once the command gets to it.
 */
function lexists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch (error) {
    if (errnoCode(error) === "ENOTDIR") return false;
    throw error;
  }
}

/** `exists(path)`, false where the file system refuses the name at the path's end as too long. */
function existsUnlessTooLong(exists: (path: string) => boolean, path: string): boolean {
  try {
    return exists(path);
  } catch (error) {
    if (errnoCode(error) === "ENAMETOOLONG") return false;
    throw error;
  }
}

/** Why the names of a path (split at either slash) may not be used, or undefined. */
function namesProblem(text: string): string | undefined {
  const names = text.split(/[\\/]+/);
  // Security: ".." climbs out of the skill's folder.
  if (names.includes("..")) return "contains '..'; only paths inside the skill's folder are allowed";
  // Security: as read_skill_file, version-control metadata is no file of the skill (a remote's token in .git/config).
  if (names.some(isVersionControl)) return "names version-control metadata (.git), which is no file of the skill";
  return undefined;
}

/** `path` without separators at its end (`/`, either slash on Windows, where `\\` is no name's character).
 * A loop: `/[/]+$/` is tried again at every separator of a long path. */
function trimSeparators(path: string): string {
  let end = path.length;
  while (end > 0 && (path[end - 1] === "/" || (process.platform === "win32" && path[end - 1] === "\\"))) end--;
  return path.slice(0, end);
}
/**
 * Whether `name` is longer than the usual file systems take: Linux's at most 255 bytes; macOS and Windows
 * count 255 UTF-16 units, so there only a name of more than 255 characters however written (510 units) is
 * sure. Windows drops the dots and spaces at a name's end (`link....` opens `link`): they do not count.
 */
export function tooLongForAName(name: string, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === "linux") return Buffer.byteLength(name) > 255;
  return (platform === "win32" ? trimDotsAndSpaces(name) : name).length > 510;
}
/** Separators between names: `/`, and `\\` on Windows. */
const SEPARATORS = process.platform === "win32" ? /[\\/]+/ : /[/]+/;

function pathProblem(
  text: string,
  skillDir: string,
  base: string,
  realpath: (p: string) => string,
  exists: (p: string) => boolean,
  names: Map<string, string | undefined> = new Map(),
): string | undefined {
  if (text === "") return undefined;
  // Security: absolute paths (POSIX, Windows drive or UNC) ignore the working directory altogether.
  if (text.startsWith("/") || text.startsWith("\\") || /^[A-Za-z]:/.test(text))
    return "is an absolute path; only paths inside the skill's folder are allowed";
  const cut = /[\\/]/.exec(text)?.index ?? text.length;
  const head = namesProblem(text.slice(0, cut));
  if (head) return head;
  const tail = text.slice(cut);
  if (!names.has(tail)) names.set(tail, namesProblem(tail));
  const problem = names.get(tail);
  if (problem) return problem;
  // Security: a symlink inside the folder may point anywhere; check the nearest existing part of the path.
  // A trailing slash would make lstat follow a link (`link/`), and many programs drop it: the link itself
  // is what is checked. That part is found from the skill's folder down, stopping at the first name
  // missing (nothing exists below a missing folder). Security: searched up from the end, and with every
  // name judged again for every place a glued value may start, one 4 KB argument (`-aaa…/a/a/…`) held
  // the server's thread, and every client, for 3.7 s.
  let probe = join(skillDir);
  const path = trimSeparators(text);
  const separator = new RegExp(SEPARATORS.source, "g");
  try {
    for (let from = 0; from <= path.length; ) {
      const found = separator.exec(path);
      const to = found ? found.index : path.length;
      const name = path.slice(from, to);
      from = found ? to + found[0].length : path.length + 1;
      if (name === "" || name === ".") continue;
      const next = join(probe, name);
      // A name longer than the file system takes is nowhere, as a missing one (a long grep pattern, `-c` code).
      // Security: only when the file system says so: some take longer names (FUSE: 1,024 bytes).
      if (!(tooLongForAName(name) ? existsUnlessTooLong(exists, next) : exists(next))) break;
      probe = next;
    }
  } catch (error) {
    return `cannot be checked (${errnoCode(error) ?? errorMessage(error)}); only paths inside the skill's folder that can be checked are allowed`;
  }
  // Nothing of it exists: it would be created in the skill's folder itself, whose real path is `base`.
  if (probe === join(skillDir)) return undefined;
  let real: string;
  try {
    real = realpath(probe);
  } catch {
    // Security: it exists (lstat) but does not resolve: a dangling symlink, which a write would follow anywhere.
    return "is a symlink that leads nowhere inside the skill's folder";
  }
  if (!isInside(base, real)) return "resolves (through a symlink) outside the skill's folder";
  // Security: a FIFO, socket or device would make the command wait on another process (or read forever).
  if (isSpecial(real)) return "is a FIFO, socket or device, not a regular file or folder";
  return undefined;
}

/**
 * Options that make an allowed command follow symlinks on its own, past the
 * path checks above (`grep -R` walks into a link to ~/.ssh; `find -L`,
 * `ls -L`, `cp -L`, `tar -h`, `rg --follow`): short letters per command,
 * long options for every command.
 */
const LINK_SHORT: Record<string, string> = {
  grep: "R",
  egrep: "R",
  fgrep: "R",
  rg: "L",
  ls: "LH",
  find: "LH",
  cp: "LH",
  du: "LH",
  tar: "h",
  tree: "l",
  chmod: "LH",
  chown: "LH",
  stat: "L",
  rsync: "LkK",
};
const LINK_LONG = /^--(dereference|follow|copy-links|copy-dirlinks|keep-dirlinks|dereference-recursive)(=|$|-)/;
const LINK_WORDS = new Set(["-follow", "-L", "-H"]);

/**
 * Security: refuse arguments that make `command` follow symbolic links (see
 * LINK_SHORT), since a link inside the skill may lead anywhere. Pure.
 */
export function checkLinkFlags(command: string, args: readonly string[]): ArgCheck {
  const name = command.toLowerCase().replace(/\.exe$/, "");
  const short = LINK_SHORT[name] ?? "";
  for (const arg of args) {
    if (arg === "--") break;
    if (LINK_LONG.test(arg))
      return { ok: false, reason: `option '${arg}' makes ${command} follow symlinks, which may lead out of the skill` };
    if (name === "find" && LINK_WORDS.has(arg))
      return { ok: false, reason: `option '${arg}' makes find follow symlinks, which may lead out of the skill` };
    if (short && /^-[A-Za-z]+$/.test(arg) && [...arg.slice(1)].some((c) => short.includes(c)))
      return { ok: false, reason: `option '${arg}' makes ${command} follow symlinks, which may lead out of the skill` };
  }
  return { ok: true };
}
