import {
  closeSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { errnoCode } from "../../util/errors.ts";
import { readNamedText } from "../../util/named-file.ts";

/**
 * One sync of a repository copy at a time, across SkillHub processes (one per
 * MCP client share `<home>/repos`): `<copy>.lock`, created with O_EXCL and
 * holding the owner's pid. Without it two syncs of one copy collide on git's
 * index.lock and leave half-updated trees.
 */

export interface CopyLockOptions {
  /** Written into the lock. Default process.pid. */
  pid?: number;
  /** How long to wait for another holder, in milliseconds. Default 5,000. */
  waitMs?: number;
  /** A lock older than this is stale whoever holds it, in milliseconds. Default 5 minutes. */
  staleMs?: number;
  /** Milliseconds between tries while waiting. Default 100. */
  pollMs?: number;
  /** Whether a process runs. Default: signal 0. */
  isAlive?: (pid: number) => boolean;
  sleep?: (ms: number) => Promise<unknown>;
}

export type CopyLock =
  | { release: () => void; heldBy?: undefined }
  | { release?: undefined; heldBy: number | undefined };

export const DEFAULT_LOCK_WAIT_MS = 5_000;
const DEFAULT_STALE_MS = 5 * 60_000;

/** Lock files this process holds now, with their inode (a pid that is ours but not listed here is a previous process's, reused). */
const held = new Map<string, number>();

/** `<copy>.lock`. */
function lockPath(copy: string): string {
  return `${copy}.lock`;
}

/**
 * Take the copy's lock, waiting up to `waitMs` for another holder; a stale
 * lock (its process is gone, or it is older than `staleMs`) is taken over.
 * Returns `release`, or `heldBy` (the holder's pid, if readable) when the
 * wait ran out.
 */
export async function lockCopy(copy: string, options: CopyLockOptions = {}): Promise<CopyLock> {
  const file = lockPath(copy);
  const pid = options.pid ?? process.pid;
  const waitUntil = Date.now() + (options.waitMs ?? DEFAULT_LOCK_WAIT_MS);
  mkdirSync(dirname(file), { recursive: true });
  for (;;) {
    const ino = tryCreate(file, pid);
    if (ino !== undefined) {
      held.set(file, ino);
      return { release: () => release(file, ino) };
    }
    const holder = readHolder(file);
    if (holder && isStale(file, holder, pid, options)) {
      breakLock(file, holder.ino);
      continue;
    }
    if (Date.now() >= waitUntil) return { heldBy: holder?.pid };
    await (options.sleep ?? Bun.sleep)(options.pollMs ?? 100);
  }
}

/** Whether `pid` names a running process (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === "EPERM";
  }
}

/** Create the lock exclusively; its inode, or undefined when it exists. */
function tryCreate(file: string, pid: number): number | undefined {
  let fd: number;
  try {
    fd = openSync(file, "wx");
  } catch (error) {
    if (errnoCode(error) === "EEXIST") return undefined;
    throw error;
  }
  try {
    writeSync(fd, `${pid}\n`);
    return fstatSync(fd).ino;
  } finally {
    closeSync(fd);
  }
}

interface Holder {
  pid: number | undefined;
  ino: number;
  ageMs: number;
}

function readHolder(file: string): Holder | undefined {
  try {
    const stat = statSync(file);
    // Bounded and non-blocking: whatever sits at the lock's name, its read ends (a FIFO there is no holder).
    const read = readNamedText({ path: file, maxBytes: 64 });
    const pid = read.ok ? Number.parseInt(read.text.trim(), 10) : Number.NaN;
    return {
      pid: Number.isSafeInteger(pid) && pid > 0 ? pid : undefined,
      ino: stat.ino,
      ageMs: Date.now() - stat.mtimeMs,
    };
  } catch {
    // Released between our create and this read: the next try takes it.
    return undefined;
  }
}

function isStale(file: string, holder: Holder, pid: number, options: CopyLockOptions): boolean {
  if (holder.ageMs > (options.staleMs ?? DEFAULT_STALE_MS)) return true;
  // No pid yet: its owner is writing it right now.
  if (holder.pid === undefined) return false;
  // Our own pid on a lock we do not hold: left by an earlier process that had the same pid.
  if (holder.pid === pid) return !held.has(file);
  return !(options.isAlive ?? processAlive)(holder.pid);
}

/**
 * Remove a stale lock, and only that one: it is renamed aside first, and if
 * what was moved is not the file judged stale (another process replaced it
 * meanwhile), it is put back.
 */
function breakLock(file: string, staleIno: number): void {
  const aside = `${file}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(file, aside);
  } catch {
    return;
  }
  try {
    if (statSync(aside).ino !== staleIno) linkSync(aside, file);
  } catch {
    // A new lock was created meanwhile: that one stands.
  }
  try {
    unlinkSync(aside);
  } catch {
    // Already gone.
  }
}

/** Remove our lock, unless another process judged it stale and replaced it meanwhile. */
function release(file: string, ino: number): void {
  if (held.get(file) !== ino) return;
  held.delete(file);
  try {
    if (statSync(file).ino === ino) unlinkSync(file);
  } catch {
    // Already removed.
  }
}
