import { closeSync, constants, fstatSync, openSync, realpathSync, type Stats, statSync } from "node:fs";
import {
  asText,
  type ConfinedFailure,
  type ConfinedFile,
  type ConfinedText,
  fail,
  fromErrno,
  openedRealPath,
  type ReadLimits,
  readOpened,
} from "./confined-read.ts";
import { errnoCode } from "./errors.ts";
import { isInside } from "./safe-path.ts";

/**
 * The bounded reader for files that configuration, a plugin registry or a
 * repository names by path: `config.yaml` (the user's, `--config`, a skills
 * folder's, a team repository's), Claude Code's `installed_plugins.json` and
 * `settings.json`, the analytics files. Same core as confined-read.ts (one
 * descriptor, opened non-blocking, checked, read once within a size cap and a
 * time budget); what differs is how the file is named: a path, not a name
 * inside a skill's folder.
 *
 * Guarantees:
 * - regular files only: the path is stat'ed first (a FIFO, socket or device
 *   is refused without being opened), then opened with O_NONBLOCK | O_NOCTTY
 *   and checked again on the descriptor (a swap in between is caught);
 * - bounded: at most `maxBytes` are read (refused past it, or cut with
 *   `overflow: "truncate"`), within `timeBudgetMs`;
 * - confined on request: with `within`, the opened file's real path must be
 *   inside that folder's real path (a repository's file may not link out);
 * - a failure is a value with a code and a sentence naming the file and what
 *   is wrong; `missing` tells "there is no such file" from every other problem.
 *
 * Usage:
 *   const read = readNamedText({ path: file, maxBytes: MAX_CONFIG_BYTES });
 *   if (!read.ok) return read.missing ? defaults : report(read.reason);
 *   parse(read.text);
 */

export interface NamedFileOptions extends ReadLimits {
  /** The file as it is named (absolute, or relative to the working folder); shown in every reason. */
  path: string;
  /** Most bytes read (required: every named file has its own cap). */
  maxBytes: number;
  /** A folder the opened file must be inside, real paths compared (someone else's content). */
  within?: string;
}

export interface NamedFileFailure extends Omit<ConfinedFailure, "code"> {
  /** confined-read.ts's codes, and PATH_OUTSIDE_FOLDER: the file must stay in `within` and does not. */
  code: ConfinedFailure["code"] | "PATH_OUTSIDE_FOLDER";
  /** Nothing is there (no file, or a link to nothing): callers usually treat it as "not configured". */
  missing: boolean;
}

/** Read a named file: see the module comment. Never throws for a file-system condition. */
export function readNamedFile(options: NamedFileOptions): ConfinedFile | NamedFileFailure {
  const path = options.path;
  let before: Stats;
  try {
    before = statSync(path);
  } catch (error) {
    return named(fromErrno(error, `'${path}'`), error);
  }
  // Security: a FIFO, a socket or a device (/dev/zero, /dev/stdin, a terminal) is never even opened.
  const kind = notRegular(before);
  if (kind) return named(fail("NOT_A_REGULAR_FILE", `'${path}' is ${kind}, not a regular file.`));
  if (before.size > options.maxBytes && options.overflow !== "truncate")
    return named({
      ...fail("FILE_TOO_LARGE", `'${path}' is ${before.size} bytes; the limit is ${options.maxBytes}.`),
      size: before.size,
    });
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
  } catch (error) {
    return named(fromErrno(error, `'${path}'`), error);
  }
  try {
    const stat = fstatSync(fd);
    // Security: what was stat'ed by name may have been swapped since; the descriptor is what gets read.
    const now = notRegular(stat);
    if (now) return named(fail("NOT_A_REGULAR_FILE", `'${path}' is ${now}, not a regular file.`));
    const real = openedRealPath(fd, path, stat);
    if (real === undefined) return named(fail("FILE_CHANGED", `'${path}' changed while it was being opened.`));
    if (options.within !== undefined) {
      const outside = outsideOf(options.within, real, path);
      if (outside) return outside;
    }
    const read = readOpened(fd, stat, real, () => path, options);
    return read.ok ? read : named(read);
  } catch (error) {
    return named(fromErrno(error, `'${path}'`), error);
  } finally {
    closeSync(fd);
  }
}

/** readNamedFile, decoded as UTF-8 (a leading BOM removed). */
export function readNamedText(options: NamedFileOptions): ConfinedText | NamedFileFailure {
  return asText(readNamedFile(options));
}

/** What a file that is not a regular one is, in words ("a FIFO"); undefined for a regular file. */
function notRegular(stat: Stats): string | undefined {
  if (stat.isFile()) return undefined;
  if (stat.isDirectory()) return "a folder";
  if (stat.isFIFO()) return "a FIFO (named pipe)";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  return "not a regular file";
}

/** Why `real` is not inside `folder` (real paths), or undefined when it is. */
function outsideOf(folder: string, real: string, path: string): NamedFileFailure | undefined {
  let base: string;
  try {
    base = realpathSync(folder);
  } catch (error) {
    return named(fromErrno(error, `the folder of '${path}'`));
  }
  if (isInside(base, real)) return undefined;
  return {
    ok: false,
    code: "PATH_OUTSIDE_FOLDER",
    reason: `'${path}' links outside ${folder} (to ${real}); it is not read.`,
    missing: false,
  };
}

function named(failure: ConfinedFailure | NamedFileFailure, error?: unknown): NamedFileFailure {
  const code = error === undefined ? undefined : errnoCode(error);
  return { ...failure, missing: code === "ENOENT" || code === "ENOTDIR" };
}
