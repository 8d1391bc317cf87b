import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs";
import { join } from "node:path";
import { errnoCode } from "./errors.ts";
import { checkRelativePath, isInside } from "./safe-path.ts";
import { shownArg } from "./shown-arg.ts";

/**
 * The one reader for every byte SkillHub serves or parses from a skill
 * (SKILL.md, tree nodes, read_skill_file, get_asset, skills-extension
 * resources). What it guarantees:
 * - confined: the file actually opened (its descriptor's real path, not the
 *   name asked for) is inside `root`'s real folder, so a symlink swapped in
 *   after the scan cannot serve someone else's bytes;
 * - regular files only, opened with O_NONBLOCK (a FIFO or a device put in a
 *   file's place cannot block the server on open or read);
 * - bounded: at most `maxBytes` (+1 to prove a file is over it) are read,
 *   whatever the file's size becomes, within a time budget;
 * - read once: the caller serves the bytes returned, never a second read by name.
 *
 * Usage:
 *   const r = readConfined({ root: skill.dir, file: "references/api.md", maxBytes: 65_536 });
 *   if (!r.ok) return errorResult(r.code, r.reason);   // codes below
 *   serve(r.bytes, r.sha256, r.size);
 */

export type ConfinedReadCode =
  | "PATH_OUTSIDE_SKILL"
  | "FILE_NOT_FOUND"
  | "PERMISSION_DENIED"
  | "NOT_A_REGULAR_FILE"
  | "FILE_TOO_LARGE"
  | "FILE_CHANGED"
  | "READ_TIMEOUT";

export interface ConfinedReadOptions {
  /** The folder the file must stay in (a skill's folder); resolved to its real path unless `rootIsReal`. */
  root: string;
  /** The file, relative to `root` (checked: no "..", not absolute, no NUL). */
  file: string;
  /** Most bytes served. Default 1 MiB (the instructions limit). */
  maxBytes?: number;
  /** Over `maxBytes`: "refuse" (default) answers FILE_TOO_LARGE; "truncate" serves the first `maxBytes`. */
  overflow?: "refuse" | "truncate";
  /** `root` is already a real path (skips one realpath call). */
  rootIsReal?: boolean;
  /** Milliseconds the read may take before READ_TIMEOUT (checked between 64 KiB chunks). Default 2000. */
  timeBudgetMs?: number;
  /** Injected clock for tests. */
  now?: () => number;
  /**
   * Told the opened file's size (fstat, bytes) and real path once every check has passed, before any byte of
   * it is read; may throw to stop the read there (the descriptor is closed and the error thrown on). An HTTP
   * answer's budget counts a file's size this way before its bytes are read (server/answer-budget.ts).
   */
  beforeRead?: (size: number, real: string) => void;
  /**
   * Told each chunk's bytes as they are read (a view valid only during the call) and the offset they start
   * at, before the next chunk is read; may throw to stop the read there, as beforeRead may. An answer whose
   * size grows with what the bytes are (JSON escapes) is counted this way as it is read.
   */
  onRead?: (bytes: Uint8Array, at: number) => void;
}

export interface ConfinedFile {
  ok: true;
  /** The bytes read (at most maxBytes). */
  bytes: Buffer;
  /** Size of the file as opened (fstat), which may exceed bytes.length when truncated. */
  size: number;
  truncated: boolean;
  /** sha256 of `bytes`, hex (computed on first access). */
  sha256: string;
  /** Real path of the opened file. */
  real: string;
  /** The opened file's stamp (sources/stamp.ts). */
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

export interface ConfinedFailure {
  ok: false;
  code: ConfinedReadCode;
  /** One sentence, without the server's absolute paths when the caller named the file relatively. */
  reason: string;
  /** Size seen, for FILE_TOO_LARGE. */
  size?: number;
}

export type ConfinedRead = ConfinedFile | ConfinedFailure;

/** Instructions (SKILL.md, tree nodes) larger than this are never read. */
export const MAX_INSTRUCTIONS_BYTES = 1_048_576;
/** Bytes read at a time (readConfinedChunks streams in chunks of this size too). */
export const CHUNK = 65_536;

/** Read a file confined to `root`: see the module comment. Never throws for a file-system condition. */
export function readConfined(options: ConfinedReadOptions): ConfinedRead {
  return withConfinedFile(options, (fd, stat, real) =>
    readOpened(fd, stat, real, () => shownArg(options.file), options),
  );
}

/** What a bounded read of an opened file needs to know: its limit, what to do past it, its time budget. */
export type ReadLimits = Pick<ConfinedReadOptions, "maxBytes" | "overflow" | "timeBudgetMs" | "now" | "onRead">;

/**
 * The bounded read every entry point shares (readConfined, named-file.ts), on a descriptor already
 * checked to be a regular file: at most `maxBytes` (+1 to prove a file grew past it), within the
 * time budget. `shown` names the file in the reasons (called only for one).
 */
export function readOpened(
  fd: number,
  stat: Stats,
  real: string,
  shown: () => string,
  limits: ReadLimits,
): ConfinedRead {
  const maxBytes = limits.maxBytes ?? MAX_INSTRUCTIONS_BYTES;
  const read = readBounded(fd, maxBytes + 1, stat.size, limits);
  if (read === undefined) return fail("READ_TIMEOUT", `'${shown()}' took too long to read; try again.`);
  let bytes = read;
  let truncated = false;
  if (bytes.length > maxBytes) {
    // Security: the size checked above may be stale; a byte past the limit proves the file grew over it.
    if (limits.overflow !== "truncate")
      return {
        ...fail("FILE_TOO_LARGE", `'${shown()}' grew past the limit of ${maxBytes} bytes.`),
        size: Math.max(bytes.length, stat.size),
      };
    bytes = bytes.subarray(0, maxBytes);
    truncated = true;
  }
  truncated ||= stat.size > bytes.length;
  let sha256: string | undefined;
  return {
    ok: true,
    bytes,
    size: Math.max(stat.size, bytes.length),
    truncated,
    // Hashed on first use: most reads (`skill`, scans, the index) never ask, and it cost as much as the read.
    get sha256() {
      sha256 ??= new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
      return sha256;
    },
    real,
    mtimeMs: stat.mtimeMs,
    ctimeMs: stat.ctimeMs,
    ino: stat.ino,
  };
}

/**
 * Open `options.file` under `options.root` and run `use` on the descriptor once every check has
 * passed (confinement of the opened file, regular file, size when refusing); always closes it.
 */
export function withConfinedFile<T>(
  options: ConfinedReadOptions,
  use: (fd: number, stat: Stats, real: string) => T | ConfinedFailure,
): T | ConfinedFailure {
  const opened = openConfined(options);
  if (!opened.ok) return opened;
  try {
    options.beforeRead?.(opened.stat.size, opened.real);
    return use(opened.fd, opened.stat, opened.real);
  } catch (error) {
    return fromErrno(error, `'${shownArg(options.file)}'`);
  } finally {
    closeSync(opened.fd);
  }
}

/** A file opened by openConfined: its descriptor, which the caller closes, its stat and its real path. */
export interface ConfinedOpen {
  ok: true;
  fd: number;
  stat: Stats;
  real: string;
}

/**
 * Open `options.file` under `options.root` with every check of withConfinedFile, and hand the descriptor
 * to the caller, who reads it at its own pace (a download sent as the client takes it) and closes it.
 */
export function openConfined(options: ConfinedReadOptions): ConfinedOpen | ConfinedFailure {
  const maxBytes = options.maxBytes ?? MAX_INSTRUCTIONS_BYTES;
  // Security: the name is the caller's (a model's, a client's URI): quoted cut and with its controls and
  // direction marks escaped, as the tools quote it, wherever the reason reaches an answer as it is.
  const shown = () => shownArg(options.file);
  // Security: the name is always relative to the root, checked as text first (no "..", absolute, NUL).
  const checked = checkRelativePath(options.file);
  if (!checked.ok) return fail("PATH_OUTSIDE_SKILL", `'${shown()}' ${checked.reason}.`);
  let rootReal: string;
  try {
    rootReal = options.rootIsReal ? options.root : realpathSync(options.root);
  } catch (error) {
    return fromErrno(error, `the skill's folder`);
  }
  const path = join(rootReal, checked.path);
  let fd: number;
  try {
    // Security: O_NONBLOCK so a FIFO cannot block the open; O_NOCTTY so a terminal device never becomes ours.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
  } catch (error) {
    return fromErrno(error, `'${shown()}'`);
  }
  const refused = (failure: ConfinedFailure) => {
    closeSync(fd);
    return failure;
  };
  try {
    const stat = fstatSync(fd);
    // Security: the descriptor is what gets read, so its real path is what must be inside the skill.
    const real = openedRealPath(fd, path, stat);
    if (real === undefined)
      return refused(fail("FILE_CHANGED", `'${shown()}' changed while it was being opened; try again.`));
    if (!isInside(rootReal, real))
      return refused(fail("PATH_OUTSIDE_SKILL", `'${shown()}' resolves outside the skill's folder and is not served.`));
    if (stat.isDirectory()) return refused(fail("FILE_NOT_FOUND", `'${shown()}' is a folder, not a file.`));
    // Security: FIFOs, sockets and devices never reach a read (one could block or never end).
    if (!stat.isFile())
      return refused(fail("NOT_A_REGULAR_FILE", `'${shown()}' is not a regular file (a FIFO, socket or device).`));
    if (stat.size > maxBytes && options.overflow !== "truncate")
      return refused({
        ...fail("FILE_TOO_LARGE", `'${shown()}' is ${stat.size} bytes; the limit is ${maxBytes}.`),
        size: stat.size,
      });
    return { ok: true, fd, stat, real };
  } catch (error) {
    return refused(fromErrno(error, `'${shown()}'`));
  }
}

/** Stateless between calls (no `stream`), so one instance serves every read. */
const UTF8 = new TextDecoder("utf-8");

/** readConfined, decoded as UTF-8 (a leading BOM removed). */
export function readConfinedText(options: ConfinedReadOptions): ConfinedText | ConfinedFailure {
  return asText(readConfined(options));
}

/** A successful read as text. */
export type ConfinedText = Omit<ConfinedFile, "bytes"> & { text: string };

/** A read's bytes decoded as UTF-8, a leading BOM removed; a failure as it is. */
export function asText<F extends { ok: false }>(read: ConfinedFile | F): ConfinedText | F {
  if (!read.ok) return read;
  const text = UTF8.decode(read.bytes);
  return {
    ok: true,
    size: read.size,
    truncated: read.truncated,
    get sha256() {
      return read.sha256;
    },
    real: read.real,
    mtimeMs: read.mtimeMs,
    ctimeMs: read.ctimeMs,
    ino: read.ino,
    text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text,
  };
}

/**
 * The real path of what `fd` has open. Linux: /proc/self/fd/N names the
 * opened file itself. Elsewhere: the name's real path, accepted only when it
 * is the same file (device and inode) as the descriptor, so a swap between
 * open and check shows as undefined (FILE_CHANGED).
 */
export function openedRealPath(fd: number, path: string, stat: { dev: number; ino: number }): string | undefined {
  if (process.platform === "linux") {
    try {
      const real = readlinkSync(`/proc/self/fd/${fd}`);
      if (real.startsWith("/") && !real.endsWith(" (deleted)")) return real;
    } catch {
      // No /proc (some containers): fall through to the portable check.
    }
  }
  try {
    const real = realpathSync(path);
    const now = statSync(real);
    return now.dev === stat.dev && now.ino === stat.ino ? real : undefined;
  } catch {
    return undefined;
  }
}

/** At most `limit` bytes from offset 0, in chunks, stopping at end of file; undefined when over the time budget. */
function readBounded(fd: number, limit: number, expected: number, options: ReadLimits): Buffer | undefined {
  const now = options.now ?? Date.now;
  const deadline = now() + (options.timeBudgetMs ?? 2000);
  // Unzeroed (zeroing cost as much as a search hit's read): the tail past what was read is zeroed below.
  let buffer = Buffer.allocUnsafe(Math.max(0, Math.min(limit, expected + 1)));
  let filled = 0;
  while (filled < limit) {
    if (filled === buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.min(limit, Math.max(buffer.length * 2, CHUNK)));
      buffer.copy(bigger, 0, 0, filled);
      buffer = bigger;
    }
    const n = readSync(fd, buffer, filled, Math.min(CHUNK, buffer.length - filled), filled);
    if (n === 0) break;
    options.onRead?.(buffer.subarray(filled, filled + n), filled);
    filled += n;
    if (now() > deadline) return undefined;
  }
  if (filled === buffer.length) return buffer;
  // Security: the bytes are a view of `buffer`, whose `.buffer` reaches past them: no stale memory there.
  buffer.fill(0, filled);
  return buffer.subarray(0, filled);
}

export function fail(code: ConfinedReadCode, reason: string): ConfinedFailure {
  return { ok: false, code, reason };
}

/** errno → a code and a sentence; an error without errno is a bug and is rethrown. */
export function fromErrno(error: unknown, what: string): ConfinedFailure {
  const code = errnoCode(error);
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
      return fail("FILE_NOT_FOUND", `${what} does not exist.`);
    case "EACCES":
    case "EPERM":
      return fail("PERMISSION_DENIED", `${what} cannot be read: permission denied.`);
    case "ELOOP":
      return fail("PATH_OUTSIDE_SKILL", `${what} is a symlink loop.`);
    case "ENXIO":
    case "ENODEV":
    case "EISDIR":
      return fail("NOT_A_REGULAR_FILE", `${what} is not a regular file.`);
    case "EAGAIN":
    case "EWOULDBLOCK":
      return fail("NOT_A_REGULAR_FILE", `${what} would block (not a regular file).`);
    case undefined:
      throw error;
    default:
      // The code alone: the system's message names the absolute path, which a client has no business seeing.
      return fail("FILE_NOT_FOUND", `${what} cannot be read (${code}).`);
  }
}
