import { lstatSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { isVersionControl, isVersionControlHead, trimDotsAndSpaces } from "../sources/version-control.ts";
import { errnoCode, errorMessage } from "../util/errors.ts";
import { isInside } from "../util/safe-path.ts";
import { statOf } from "../util/stat.ts";

/**
 * Checks on what run_skill_command is asked to run: the command must be a
 * bare allow-listed name, and arguments that are file paths must stay inside
 * the skill's folder. Pure apart from `realpath`/`exists`, which are injectable.
 */

export type ArgCheck = { ok: true } | { ok: false; reason: string };

/** How a reason quotes the argument it is about; the tool gives one that cuts a long one short. */
export type Quote = (arg: string) => string;

const asIs: Quote = (arg) => `'${arg}'`;

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
  /** Whose path rules apply (drive letters, `\\` as a separator); default the server's own. */
  platform?: NodeJS.Platform;
  /** How the reason quotes the refused argument; default whole, in single quotes. */
  quote?: Quote;
}

/**
 * The first argument that reaches outside `skillDir`, or ok. What is checked
 * (the command resolves its arguments against the skill's folder, its cwd):
 * - every argument, and the value of `--option=value`;
 * - what follows every `=` and `@` in an argument (`dd if=/etc/passwd`, `awk -v f=…`, `curl -d @file`,
 *   `-F x=@file`, `-F x=<file`, `gcc @file`), and what follows every `file:` (a URL), %-escapes decoded;
 * - the file names curl's `-F` reads after `@` and `=<`: spaces before them skipped, each ended by `;` or `,`;
 * - absolute paths ("/etc/passwd", "\\\\host\\share", on Windows "C:\\x" and "C:x") are refused;
 * - a ".." segment anywhere ("../x", "a/../../b") is refused, even when it would come back in;
 * - an argument naming something that exists (or whose nearest existing parent exists) under
 *   the skill's folder must resolve, symlinks followed, inside the skill's real folder.
 * - a value glued to short options (`-f/etc/passwd`, `-rfsub/link`, `-5f/etc/passwd`): where the option
 *   letters and digits end is the command's business, so every place the value could start is checked.
 * Not checked: text inside an argument (`python -c "open('/etc/x')"`), or what an interpreter does at
 * run time — allow-listing an interpreter trusts it.
 *
 * Security: the check runs on the server's only thread, and an argument may hold a place a path starts at
 * nearly every character (`-aaaa…`, `@@@@…`): it takes time in proportion to the argument's length, with at
 * most one look at the file system per place (and one per name that exists below it), as `Text` explains.
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
  const platform = io.platform ?? process.platform;
  const quote = io.quote ?? asIs;
  const skill: SkillFolder = { root: join(skillDir), base, realpath, exists };
  for (const arg of args) {
    // Security: a NUL byte would cut the argument short in the kernel's exec call.
    if (arg.includes("\0")) return { ok: false, reason: `argument ${quote(arg)} contains a NUL byte` };
    for (const place of pathPlaces(arg, platform)) {
      const problem = pathProblem(place, skill);
      if (problem) return { ok: false, reason: `argument ${quote(arg)} ${problem}${place.hint}` };
    }
  }
  return { ok: true };
}

/** The skill's folder as `join` writes it (`root`), its real path, and how the file system is read. */
interface SkillFolder {
  root: string;
  base: string;
  realpath: (path: string) => string;
  exists: (path: string) => boolean;
}

const GLUED = " (a value glued to a short option counts as a path: give it as its own argument)";
const AFTER_SIGN =
  " (what follows '=' or '@' counts as a path: give a path inside the skill's folder, or, for text that is no path, write [=] or [@] in a pattern and %2F for / in a URL)";
const CURL_FILE =
  " (curl's -F uploads the files named after '@' or '=<', spaces before a name skipped, each name ended by ';' or ',': give paths inside the skill's folder)";
const FILE_URL = " (a file: URL counts as a path: give the file's path relative to the skill's folder, without file:)";

/**
 * A string in which paths may start at many places (an argument, or the paths of its file: URLs), with
 * what those places share worked out once. Places in one name (`-aaaa…`, `a=a=a…`) are each other's ends,
 * and places before one slash share every name after it: judging each place's text from scratch took time
 * in the square of the argument's length. Here a place costs a few steps, and at most one look at the file
 * system for its first name (`lookUp`).
 */
interface Text {
  value: string;
  platform: NodeJS.Platform;
  /** For each index, the first `/` or `\` at or after it (names are judged split at either), or the length. */
  slashes: Int32Array;
  /** For each index, the first separator the file system splits at (`/`; either slash on Windows). */
  separators: Int32Array;
  /** Per end of a place: from which index on every name up to that end is known to be no `..` and no `.git`. */
  fineFrom: Map<number, number>;
  /** Per end of a name: what the names ending there share. */
  names: Map<number, NameEnd>;
}

/** What the names ending at one index share: each is the end of every longer one. */
interface NameEnd {
  /** Where they end once Windows has dropped the dots and spaces at their end (elsewhere: the index itself). */
  kept: number;
  /** In the skill's folder, the names starting at or before it are known to be refused as too long. */
  tooLongTo?: number;
}

/** A place in `text` where a path may start, where it ends, and what to tell the model when it is refused. */
interface Place {
  text: Text;
  start: number;
  end: number;
  hint: string;
}

function textOf(value: string, platform: NodeJS.Platform): Text {
  const slashes = nextOf(value, "/\\");
  const separators = platform === "win32" ? slashes : nextOf(value, "/");
  return { value, platform, slashes, separators, fineFrom: new Map(), names: new Map() };
}

/** For each index of `text` and its length, the first index at or after it holding one of `chars`, or the length. */
function nextOf(text: string, chars: string): Int32Array {
  const codes = Array.from(chars, (char) => char.charCodeAt(0));
  const next = new Int32Array(text.length + 1);
  next[text.length] = text.length;
  for (let i = text.length - 1; i >= 0; i--) next[i] = codes.includes(text.charCodeAt(i)) ? i : (next[i + 1] as number);
  return next;
}

/**
 * Where in `arg` a command may take what follows for a path: a plain argument itself; the value of
 * `--option=value`; after `-` and a run of option letters and digits, every place the value may start
 * (`-rfsub/x` is `-r -f sub/x` to grep; `-rf/x` is `-r -f /x`). Security: a digit is an option as well as a
 * letter (grep's `-5` asks for 5 lines of context): `grep -a5f/etc/passwd` reads its patterns from /etc/passwd.
 *
 * Security: what follows every `=` and every `@`, wherever it is. `name=value` is a path to dd (`if=`,
 * `of=`), make and awk (`-v f=…`); `@file` is one to curl (`-d @file`, `-F x=@file`, `--data-urlencode
 * name@file`) and to gcc (a response file); `=<file` sends a file's content with curl's `-F`. Every `=`
 * and not the first only: a value may itself be `name=value` (gawk's `--assign=f=/etc/passwd`), and
 * which `=` a program splits at is its business, as where glued option letters end is. A pattern that
 * merely holds `=` or `@` passes: only what follows them is judged, as any path is.
 */
function* pathPlaces(arg: string, platform: NodeJS.Platform): Generator<Place> {
  const text = textOf(arg, platform);
  const at = (start: number, hint: string, end = arg.length): Place => ({ text, start, end, hint });
  // A name from `start` to `end`, and the one between quotes when a quote opens it.
  function* named(start: number, end: number, hint: string): Generator<Place> {
    yield at(start, hint, end);
    const quoted = arg[start] === '"' ? quotedName(arg, start) : undefined;
    if (quoted !== undefined) yield { text: textOf(quoted, platform), start: 0, end: quoted.length, hint };
  }
  if (!arg.startsWith("-")) yield at(0, "");
  // First, so that a URL glued to an option (`-ufile:///x`) is refused with the words for a URL.
  yield* urlPlaces(arg, platform);
  if (arg.startsWith("-") && !arg.startsWith("--")) {
    const letters = /^-[A-Za-z0-9]*/.exec(arg)?.[0].length ?? 1;
    for (let i = 2; i <= letters && i < arg.length; i++) yield at(i, GLUED);
  }
  const curl = curlFiles(arg);
  for (let i = 0; i < arg.length; i++) {
    const sign = arg[i];
    const file = sign === "@" || (sign === "<" && arg[i - 1] === "=") || (sign === "," && i > curl.list);
    if (sign === "=" || (file && sign !== ",")) yield* named(i + 1, arg.length, AFTER_SIGN);
    if (!file) continue;
    const start = curl.nameStart(i + 1);
    const end = curl.nameEnd(start);
    // The name as curl reads it, unless that is the place just judged.
    if (sign === "," || start > i + 1) yield* named(start, end, CURL_FILE);
    else if (end < arg.length) yield at(start, CURL_FILE, end);
  }
}

const SPACES = " \t\n\v\f\r";

/**
 * Security: curl's `-F name=@file` (and `name=<file`, `;headers=@file`) reads its file names its own way,
 * each a name no other place judges: it skips the spaces before a name (`x=@ /etc/passwd`); it ends an
 * unquoted name at `;` (`x=@leak.txt;type=text/plain` uploads `leak.txt`), dropping the spaces before the
 * `;`; and after `@` it takes several files separated by `,` (`x=@a.txt,/etc/passwd`, a `,` also ending a
 * `;type=…`). So past the spaces after every `@` and `=<`, and after every `,` following the first of them,
 * a name runs to the next `;` or `,` (a longer name than curl's, at `<`, is only stricter). Spaces are
 * skipped from one sign each and these names end at the next `;` or `,`: they do not overlap.
 */
function curlFiles(arg: string) {
  const stops = nextOf(arg, ";,");
  // For each index, where the spaces just before it start.
  const spacesFrom = new Int32Array(arg.length + 1);
  for (let i = 1; i <= arg.length; i++)
    spacesFrom[i] = SPACES.includes(arg[i - 1] as string) ? (spacesFrom[i - 1] as number) : i;
  const first = arg.search(/@|=</);
  return {
    /** After the first `@` or `=<`, a `,` separates curl's file names. */
    list: first < 0 ? arg.length : first,
    nameStart(after: number): number {
      let start = after;
      while (start < arg.length && SPACES.includes(arg[start] as string)) start++;
      return start;
    },
    nameEnd(start: number): number {
      return Math.max(start, spacesFrom[stops[start] as number] as number);
    },
  };
}

/**
 * Security: curl's `-F x=@"file"`, `x=<"file"` and `headers=@"file"` take the name between the quotes, its
 * `\"` and `\\` unescaped: the name from the `"` at `open` to the closing one, or undefined when none closes
 * it (curl then takes the quote as part of the name, which the place at `open` judges). A name is read
 * only up to the first quote that is not escaped, and a quote opening another one follows `@`, `<`, `=`, `,`
 * or a space, so no escaped quote: the names read for one argument do not overlap, and take time in its length.
 */
function quotedName(arg: string, open: number): string | undefined {
  let name = "";
  for (let i = open + 1; i < arg.length; i++) {
    if (arg[i] === '"') return name;
    if (arg[i] === "\\" && (arg[i + 1] === "\\" || arg[i + 1] === '"')) i++;
    name += arg[i];
  }
  return undefined;
}

/**
 * Security: what follows every `file:` (any case, wherever it starts: `url=file:…`, `-ufile:…`,
 * `<URL:file:…>`, `jar:file:…`) is the path of a `file:` URL, which curl, git and Python's urllib open.
 * Every standard one is absolute (`file:/p`, `file:///p`, `file://host/p`) and refused as absolute paths
 * are; Python also opens a relative one (`file:x`) from its working folder, which is judged as a path
 * after its %-escapes are decoded (`file:%2e%2e/x` is `../x`), whole and cut at `?` or `#` (curl drops
 * a query, Python keeps it). `file:` before text that is no such path (`file: x`, `Makefile:12`) passes.
 *
 * The paths are decoded once, as one text: what follows a `file:` ends as what follows the next one does,
 * and no %-escape spans the `:` between them.
 */
function* urlPlaces(arg: string, platform: NodeJS.Platform): Generator<Place> {
  const starts = Array.from(arg.matchAll(/file:/gi), (url) => url.index + url[0].length);
  if (starts.length === 0) return;
  const pieces = starts.map((start, i) => percentDecoded(arg.slice(start, starts[i + 1] ?? arg.length)));
  const text = textOf(pieces.join(""), platform);
  const query = nextOf(text.value, "?#");
  const end = text.value.length;
  let start = 0;
  for (const piece of pieces) {
    yield { text, start, end, hint: FILE_URL };
    if ((query[start] as number) < end) yield { text, start, end: query[start] as number, hint: FILE_URL };
    start += piece.length;
  }
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

/** Whether `error` is the file system refusing a name as too long. */
function isTooLong(error: unknown): boolean {
  return errnoCode(error) === "ENAMETOOLONG";
}

const CLIMBS = "contains '..'; only paths inside the skill's folder are allowed";
const VCS = "names version-control metadata (.git), which is no file of the skill";

/** Why the names of a path (split at either slash) may not be used, or undefined. */
function namesProblem(text: string): string | undefined {
  const names = text.split(/[\\/]+/);
  // Security: ".." climbs out of the skill's folder.
  if (names.includes("..")) return CLIMBS;
  // Security: as read_skill_file, version-control metadata is no file of the skill (a remote's token in .git/config).
  if (names.some(isVersionControl)) return VCS;
  return undefined;
}

/** Why the names from `cut` (a slash) to `end` may not be used; each is judged once for all places sharing it. */
function tailProblem(text: Text, cut: number, end: number): string | undefined {
  const fine = text.fineFrom.get(end) ?? end;
  if (cut >= fine) return undefined;
  const problem = namesProblem(text.value.slice(cut, fine));
  if (!problem) text.fineFrom.set(end, cut);
  return problem;
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

/**
 * No system SkillHub runs on takes a longer name (UTF-16 units, each at least a byte): Linux's PATH_MAX of
 * 4,096 bytes bounds a whole path and so each of its names; macOS and Windows take 255 units.
 */
const LONGEST_NAME = 4096;

function pathProblem({ text, start, end }: Place, skill: SkillFolder): string | undefined {
  const { value } = text;
  if (start === end) return undefined;
  // Security: absolute paths (POSIX, Windows drive or UNC) ignore the working directory altogether. A drive
  // letter is one only on Windows (`C:x` is relative to that drive's own folder there): elsewhere `key=a:b`
  // and `--sort=k:asc` are a name holding a colon.
  const drive =
    text.platform === "win32" && start + 1 < end && value[start + 1] === ":" && /[A-Za-z]/.test(value[start] ?? "");
  if (value[start] === "/" || value[start] === "\\" || drive)
    return "is an absolute path; only paths inside the skill's folder are allowed";
  const cut = Math.min(text.slashes[start] as number, end);
  const head = value.slice(start, cut);
  if (head === "..") return CLIMBS;
  if (isVersionControlHead(head)) return VCS;
  const tail = tailProblem(text, cut, end);
  if (tail) return tail;
  // Security: a symlink inside the folder may point anywhere; check the nearest existing part of the path.
  // Names are looked up from the skill's folder down, stopping at the first one missing (nothing exists
  // below a missing folder); a separator at the end is dropped, as many programs do: the link itself is
  // what is checked (`link/` would make lstat follow it).
  let probe = skill.root;
  try {
    for (let from = start, to = start; from < end; from = to + 1) {
      to = Math.min(text.separators[from] as number, end);
      if (to === from || (to === from + 1 && value[from] === ".")) continue;
      const next = lookUp(text, from, to, probe, skill);
      if (next === undefined) break;
      probe = next;
    }
  } catch (error) {
    return `cannot be checked (${errnoCode(error) ?? errorMessage(error)}); only paths inside the skill's folder that can be checked are allowed`;
  }
  // Nothing of it exists: it would be created in the skill's folder itself, whose real path is `base`.
  if (probe === skill.root) return undefined;
  let real: string;
  try {
    real = skill.realpath(probe);
  } catch {
    // Security: it exists (lstat) but does not resolve: a dangling symlink, which a write would follow anywhere.
    return "is a symlink that leads nowhere inside the skill's folder";
  }
  if (!isInside(skill.base, real)) return "resolves (through a symlink) outside the skill's folder";
  // Security: a FIFO, socket or device would make the command wait on another process (or read forever).
  if (isSpecial(real)) return "is a FIFO, socket or device, not a regular file or folder";
  return undefined;
}

/**
 * The path of the name `text.value[from, to)` in `folder` if it exists, or undefined; a failure other than
 * a missing name is thrown. A name longer than the file system takes is nowhere, as a missing one (a long
 * grep pattern, `-c` code). Security: only when the file system says so: some take longer names (FUSE:
 * 1,024 bytes); but one longer than any system takes (`LONGEST_NAME`) is nowhere without asking.
 */
function lookUp(text: Text, from: number, to: number, folder: string, skill: SkillFolder): string | undefined {
  const shared = nameEnd(text, to);
  const inSkill = folder === skill.root;
  if (shared.kept - from > LONGEST_NAME || (inSkill && from <= (shared.tooLongTo ?? -1))) return undefined;
  const path = join(folder, text.value.slice(from, to));
  try {
    return skill.exists(path) ? path : undefined;
  } catch (error) {
    if (!isTooLong(error) || !tooLongForAName(text.value.slice(from, shared.kept), text.platform)) throw error;
    if (inSkill) shared.tooLongTo ??= lastTooLong(text, from, to, skill);
    return undefined;
  }
}

function nameEnd(text: Text, to: number): NameEnd {
  let shared = text.names.get(to);
  if (shared === undefined) {
    shared = { kept: text.platform === "win32" ? trimDotsAndSpaces(text.value.slice(0, to)).length : to };
    text.names.set(to, shared);
  }
  return shared;
}

/**
 * The last index from which the names ending at `to` are refused as too long in the skill's folder, the one
 * from `from` (longer than usual) being refused. Each place in `-aaaa…` starts such a name: rather than one
 * look per place, the file system is asked once more, about the shortest of them longer than usual.
 * Security: a file system that refuses a name as too long refuses every longer one, so every name it ends;
 * where it takes that one, each name is asked about.
 */
function lastTooLong(text: Text, from: number, to: number, skill: SkillFolder): number {
  const { kept } = nameEnd(text, to);
  // A name shortens as its start moves on: halve the span between one longer than usual and the empty one.
  let long = from;
  let short = kept;
  while (short - long > 1) {
    const middle = (long + short) >>> 1;
    if (tooLongForAName(text.value.slice(middle, kept), text.platform)) long = middle;
    else short = middle;
  }
  if (long === from) return from;
  try {
    skill.exists(join(skill.root, text.value.slice(long, to)));
    return from;
  } catch (error) {
    return isTooLong(error) ? long : from;
  }
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
/**
 * Security: curl expands `{a,b}` and `[1-3]` in the file names it uploads (`-T '{/etc/hostname,x}'`,
 * `-T '{.,x}./secret'` is `../secret`, `-T 'lea[k-k].txt'` a symlink out), making names the path check never
 * sees. Expanding them could make 100,000 names of one argument, so an argument of curl's holding `{` or `[`
 * is refused unless globbing is off (`-g`, `--globoff`), which also leaves JSON (`-d '{"a":1}'`) to pass.
 */
export function checkCurlGlobs(command: string, args: readonly string[], quote: Quote = asIs): ArgCheck {
  if (command.toLowerCase().replace(/\.exe$/, "") !== "curl") return { ok: true };
  if (args.some((arg) => arg === "-g" || arg === "--globoff")) return { ok: true };
  const glob = args.find((arg) => /[{[]/.test(arg));
  if (glob === undefined) return { ok: true };
  return {
    ok: false,
    reason: `argument ${quote(glob)} holds '{' or '[', which curl expands into file names the path check cannot follow; add --globoff (-g), or give each file as it is named`,
  };
}

const LINK_LONG = /^--(dereference|follow|copy-links|copy-dirlinks|keep-dirlinks|dereference-recursive)(=|$|-)/;
const LINK_WORDS = new Set(["-follow", "-L", "-H"]);

/**
 * Security: refuse arguments that make `command` follow symbolic links (see
 * LINK_SHORT), since a link inside the skill may lead anywhere. Pure.
 */
export function checkLinkFlags(command: string, args: readonly string[], quote: Quote = asIs): ArgCheck {
  const name = command.toLowerCase().replace(/\.exe$/, "");
  const short = LINK_SHORT[name] ?? "";
  for (const arg of args) {
    if (arg === "--") break;
    if (LINK_LONG.test(arg))
      return {
        ok: false,
        reason: `option ${quote(arg)} makes ${command} follow symlinks, which may lead out of the skill`,
      };
    if (name === "find" && LINK_WORDS.has(arg))
      return { ok: false, reason: `option ${quote(arg)} makes find follow symlinks, which may lead out of the skill` };
    if (short && /^-[A-Za-z]+$/.test(arg) && [...arg.slice(1)].some((c) => short.includes(c)))
      return {
        ok: false,
        reason: `option ${quote(arg)} makes ${command} follow symlinks, which may lead out of the skill`,
      };
  }
  return { ok: true };
}
