import { readFileSync, readlinkSync } from "node:fs";
import { entries, ownerOf } from "./proc-files.ts";
import { readProcStat } from "./process-stat.ts";

/**
 * Security: the processes that hold a run's output pipes (exec/output-pipes.ts) open for writing, found
 * in /proc (Linux). A process that left the run's group and cleared its environment (setsid + env -i) is
 * still the run's while it holds one: the pipes were made for that run alone.
 *
 * Not every holder is the run's, though: a script can hand its output to a process that was running
 * before it (a unix socket's SCM_RIGHTS: `systemd-run --user --pipe`, an ssh ControlMaster, any job
 * broker of yours), and that one must live on. So only a process of the server's user that started at
 * or after the run began is looked at (its start, in /proc/<pid>/stat, before any of its descriptors);
 * the server's own parents started before it, so they never are.
 *
 * The search reads a process's descriptors one at a time, and a script can leave processes holding tens
 * of thousands each. So it is a series of small steps (`pipeWriterSteps`), which exec/proc-search.ts
 * runs for a bounded time, giving the event loop a turn every few milliseconds.
 */

/**
 * The search, one look at a time: yields the pid of each process found holding one of `pipes` (what
 * /proc shows for them: `pipe:[inode]`) open for writing, and undefined between two looks. Processes
 * that started before `since` (clock ticks since boot: exec/process-stat.ts), other users' processes,
 * and this one are skipped without a look at their descriptors.
 */
export function* pipeWriterSteps(pipes: readonly string[], since?: number): Generator<number | undefined, void> {
  if (pipes.length === 0) return;
  const wanted = new Set(pipes);
  const uid = process.geteuid?.();
  for (const name of entries("/proc")) {
    yield;
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const dir = `/proc/${name}`;
    // Another user's process: not ours to read or kill.
    if (ownerOf(dir) !== uid) continue;
    const stat = readProcStat(dir);
    if (!stat || (since !== undefined && stat.start < since)) continue;
    search: for (const table of descriptorTables(dir)) {
      yield;
      // One of ours that made itself undumpable (its fd folder is then root's): its descriptors are closed to us.
      if (ownerOf(`${table.dir}/fd`) !== uid) continue;
      // Slot by slot up to the table's size: one readlink per step, never one listing of a huge folder.
      for (let fd = 0; fd < table.size; fd++) {
        yield;
        const target = linkOf(`${table.dir}/fd/${fd}`);
        if (target !== undefined && wanted.has(target) && writable(`${table.dir}/fdinfo/${fd}`)) {
          yield Number(name);
          break search;
        }
      }
    }
  }
}

/**
 * A process's descriptor tables, with how many slots each has (FDSize). Its threads usually share one,
 * listed under /proc/<pid>/fd (the first thread's). But a thread may take a table of its own
 * (unshare(CLONE_FILES)) and keep there a descriptor the others have closed, and a process whose first
 * thread has exited lists none under /proc/<pid>/fd. So each live thread's table of a process with more
 * than one thread is read, under /proc/<pid>/task/<tid>/fd (a table shared by several is read once for each).
 */
function* descriptorTables(dir: string): Generator<{ dir: string; size: number }, void> {
  const status = readStatus(dir);
  if (!status) return;
  if (status.threads <= 1) {
    if (status.fdSize > 0) yield { dir, size: status.fdSize };
    return;
  }
  for (const tid of entries(`${dir}/task`)) {
    const task = `${dir}/task/${tid}`;
    const size = readStatus(task)?.fdSize ?? 0;
    if (size > 0) yield { dir: task, size };
  }
}

const FD_SIZE = /^FDSize:\s*(\d+)/m;
const THREADS = /^Threads:\s*(\d+)/m;

/** FDSize and Threads from a process's or task's status; undefined when it is gone. */
function readStatus(dir: string): { fdSize: number; threads: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`${dir}/status`, "latin1");
  } catch {
    return undefined;
  }
  return { fdSize: Number(FD_SIZE.exec(text)?.[1] ?? 0), threads: Number(THREADS.exec(text)?.[1] ?? 0) };
}

function linkOf(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** Whether a descriptor's fdinfo shows it open for writing (O_WRONLY or O_RDWR in its octal `flags`). */
function writable(fdinfo: string): boolean {
  try {
    const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(fdinfo, "latin1"))?.[1];
    return flags !== undefined && (Number.parseInt(flags, 8) & 3) !== 0;
  } catch {
    return false;
  }
}
