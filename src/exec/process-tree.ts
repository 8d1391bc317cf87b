import { entries, runsAs } from "./proc-files.ts";
import { runSearch, runSearchNow, type SearchEnd, type SearchOptions } from "./proc-search.ts";
import { environHolds } from "./process-environ.ts";
import { pipeWriterSteps } from "./process-pipe-writers.ts";
import { type ProcStat, readProcStat } from "./process-stat.ts";
import { killStopped, signalSame, stopProcess } from "./stopped-processes.ts";

/**
 * Security: every process a script started, found again at its end. Killing
 * the script's process group misses a child that called setsid (a new
 * session is a new group) or that was reparented to PID 1. So each run gets a
 * marker variable (SKILLHUB_RUN_ID=<random>) that every descendant inherits
 * through fork and exec, and at timeout (and at the end of the run) the
 * server walks /proc: a process whose initial environment carries the marker,
 * or whose parent chain leads to the script, is signalled too. Only processes
 * of this user that started after the run began are looked at
 * (exec/process-stat.ts): one that was running before cannot be the run's,
 * whatever pid it was given.
 *
 * The walk is a series of small steps (exec/proc-search.ts), each environment
 * read a part at a time (exec/process-environ.ts), so the server goes on
 * answering however many processes, with however large environments, a script
 * leaves. A kill stops what it finds first (SIGSTOP) and looks again until a
 * look finds nothing new: a process that forks as fast as it can has no child
 * left unseen when the SIGKILLs go out. What is stopped is killed within
 * STOP_WINDOW_MS, and a closing server kills as it finds (exec/stopped-processes.ts):
 * a server that ends between the two halves must not leave processes stopped.
 * Each process is known by its pid and its start, read again right before
 * every signal (and after a SIGSTOP): one that died since the look may have
 * left its pid to a stranger.
 *
 * One that wipes its environment *and* leaves the tree (double fork + env -i)
 * is still found while it holds the run's stdout or stderr open (the pipes
 * were made for this run alone, before it started: exec/output-pipes.ts,
 * exec/process-pipe-writers.ts). Linux only (/proc). Elsewhere the process
 * group is all there is (see docs/hardening.md). A descendant that does all
 * three (leaves, wipes, closes its output) escapes; cgroups would catch it but
 * need privileges this server does not assume.
 */

export const RUN_MARKER_VARIABLE = "SKILLHUB_RUN_ID";

/** process.kill's shape; a negative pid names a process group (POSIX). */
export type KillFn = (pid: number, signal: NodeJS.Signals | 0) => void;

/** What tells a run's processes from all others. */
export interface RunTrace {
  /** The process group its child leads (the child's pid). */
  group: number;
  /** The value of RUN_MARKER_VARIABLE its processes inherit. */
  marker?: string;
  /** When it began, in clock ticks since boot (exec/process-stat.ts bootTicks); unknown without /proc. */
  since?: number;
  /** What /proc shows for its output pipes (`pipe:[inode]`), when they were made for it (exec/output-pipes.ts). */
  pipes?: readonly string[];
}

/** One process as the search sees it. */
export interface ProcessRow {
  pid: number;
  ppid: number;
  pgid: number;
  /** When it started, in clock ticks since boot (with the pid, who it is); undefined where the table does not tell. */
  start?: number;
  /** Its initial environment holds the run's marker. */
  marked: boolean;
}

/** Processes already signalled by a search: pid → start (ProcessRow.start). */
export type KnownProcesses = ReadonlyMap<number, number | undefined>;

export interface ProcessTable {
  /**
   * The processes of this user other than this one that started at or after `since` (clock ticks since
   * boot), one look at a time: yields each as it is read, and undefined between two looks. A process
   * in `known` with the start given there is listed without a look at its environment (`marked` false).
   */
  processes(marker: string, since?: number, known?: KnownProcesses): Iterable<ProcessRow | undefined>;
  /** A process's /proc/<pid>/stat now, to tell it is still the one signalled before; undefined when gone. */
  stat?(pid: number): ProcStat | undefined;
  /**
   * The search for processes other than this one that hold one of `pipes` open for writing, one look
   * at a time (exec/process-pipe-writers.ts): of this user, started at or after `since`.
   */
  pipeWriters?(pipes: readonly string[], since?: number): Iterator<number | undefined>;
}

/** The live table from /proc; empty where there is no /proc. */
export const procTable: ProcessTable = {
  processes: processSteps,
  pipeWriters: pipeWriterSteps,
  stat: (pid) => readProcStat(`/proc/${pid}`),
};

/**
 * ProcessTable.processes from /proc. Another user's process is skipped on its folder's owner, before
 * anything in it is read; an environment is read until the marker shows, a part at a time.
 */
export function* processSteps(
  marker: string,
  since?: number,
  known?: KnownProcesses,
): Generator<ProcessRow | undefined, void> {
  const uid = process.geteuid?.();
  const entry = `${RUN_MARKER_VARIABLE}=${marker}`;
  for (const name of entries("/proc")) {
    yield;
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const dir = `/proc/${name}`;
    if (!runsAs(dir, uid)) continue;
    const stat = readProcStat(dir);
    if (!stat || (since !== undefined && stat.start < since)) continue;
    const pid = Number(name);
    // A pid known with another start was given to a new process since: it is looked at as any other.
    const isKnown = known?.has(pid) === true && known.get(pid) === stat.start;
    const marked = !isKnown && (yield* environHolds(`${dir}/environ`, entry));
    yield { pid, ppid: stat.ppid, pgid: stat.pgid, start: stat.start, marked };
  }
}

/**
 * Pids of the run among `rows`: marked ones, those in `known`, `root` while it has not been reaped
 * (after that its pid may be reused), and their descendants. Never `root` itself, nor this process.
 */
export function runMembers(rows: readonly ProcessRow[], root?: number, known?: ReadonlySet<number>): number[] {
  const members = new Set<number>(known);
  for (const row of rows) if (row.marked) members.add(row.pid);
  if (root !== undefined) members.add(root);
  // Descendants by parent pid, to a fixed point (a child listed before its parent is caught on a later pass).
  let grew = true;
  while (grew) {
    grew = false;
    for (const row of rows)
      if (!members.has(row.pid) && members.has(row.ppid)) {
        members.add(row.pid);
        grew = true;
      }
  }
  if (root !== undefined) members.delete(root);
  members.delete(process.pid);
  return [...members].sort((a, b) => a - b);
}

/** Most looks of one kill: each stops what it finds, until a look finds nothing new. */
export const KILL_LOOKS = 8;

/**
 * Most milliseconds a process stays stopped by a kill before it is killed: what a kill has stopped is
 * killed once this long has passed since the first of them was stopped, and the search goes on. Were the
 * server itself killed meanwhile (SIGKILL, which no handler sees), what it had stopped would stay stopped.
 */
export const STOP_WINDOW_MS = 1_000;

export interface KillOptions {
  /**
   * SIGKILL each process as it is found, without stopping it first, looking again until a look finds no
   * new one: for a closing server, which may be killed itself before a second half.
   */
  asFound?: boolean;
  /** Clock, in milliseconds. Default performance.now. */
  now?: () => number;
  /**
   * Whether the server is closing (RunningGroups.killAll has run): from then on the search SIGKILLs what
   * it finds instead of stopping it, as a closing server may be killed before a second half.
   */
  closing?: () => boolean;
}

/**
 * Steps that signal every process of the run that left its group (the group itself is signalled by
 * signalGroup, all at once): marker carriers and descendants of the run's child (`root()`, while it has
 * not been reaped) that started after the run began. SIGKILL is sent in two halves: each process found
 * is stopped (SIGSTOP) at once, and /proc is looked at again until a look finds no new one (at most
 * KILL_LOOKS looks), then every stopped one is killed, if it is still the process stopped; those stopped
 * for STOP_WINDOW_MS are killed without waiting for the looks to end. Ended early, the steps still kill
 * what they stopped. With `options.asFound`, SIGKILL goes out as each is found. Returns how many processes
 * were signalled.
 */
export function* signalRunSteps(
  run: RunTrace,
  root: () => number | undefined,
  signal: NodeJS.Signals,
  kill: KillFn,
  table: ProcessTable = procTable,
  options: KillOptions = {},
): Generator<undefined, number> {
  const marker = run.marker;
  if (marker === undefined) return 0;
  const signalled = new Map<number, number | undefined>();
  let count = 0;
  const looks = signal === "SIGKILL" ? KILL_LOOKS : 1;
  const stat = table.stat?.bind(table);
  const lookAll = function* (send: (pid: number, start: number | undefined) => boolean, due?: () => void) {
    for (let look = 0; look < looks; look++) {
      const before = count;
      yield* signalLook(
        run,
        marker,
        root,
        table,
        signalled,
        (pid, start) => {
          if (!send(pid, start)) return false;
          count++;
          return true;
        },
        due,
      );
      if (count === before) break;
    }
  };
  if (signal !== "SIGKILL" || options.asFound) {
    yield* lookAll((pid, start) => signalSame(pid, signal, { start, kill, stat }));
    return count;
  }
  const now = options.now ?? (() => performance.now());
  /** Stopped and not yet killed, and since when the first of them is. */
  const batch: { pid: number; start: number | undefined }[] = [];
  let firstStop: number | undefined;
  const killBatch = () => {
    for (const { pid, start } of batch) killStopped(pid, start);
    batch.length = 0;
    firstStop = undefined;
  };
  try {
    yield* lookAll(
      (pid, start) => {
        if (options.closing?.()) return signalSame(pid, "SIGKILL", { start, kill, stat });
        if (!stopProcess(pid, { start, kill, stat })) return false;
        batch.push({ pid, start });
        firstStop ??= now();
        return true;
      },
      () => {
        if (firstStop !== undefined && now() - firstStop >= STOP_WINDOW_MS) killBatch();
      },
    );
  } finally {
    killBatch();
  }
  return count;
}

/**
 * One look through the table: `send` to each process of the run not yet in `signalled` (by pid and
 * start), added there once sent (`send` returns false for a pid that names another process now); `due`
 * is called between two steps.
 */
function* signalLook(
  run: RunTrace,
  marker: string,
  root: () => number | undefined,
  table: ProcessTable,
  signalled: Map<number, number | undefined>,
  send: (pid: number, start: number | undefined) => boolean,
  due?: () => void,
): Generator<undefined, void> {
  const known = (pid: number, start: number | undefined) => signalled.has(pid) && signalled.get(pid) === start;
  const found = (pid: number, start: number | undefined) => {
    if (known(pid, start)) return;
    try {
      if (send(pid, start)) signalled.set(pid, start);
    } catch {
      // Gone already, or not ours.
    }
  };
  const rows: ProcessRow[] = [];
  for (const row of table.processes(marker, run.since, signalled)) {
    if (row === undefined) {
      due?.();
      yield;
      continue;
    }
    rows.push(row);
    // A carrier is signalled as soon as it is seen: stopped, it forks no more while the rest is read.
    if (row.marked && row.pgid !== run.group) found(row.pid, row.start);
  }
  const starts = new Map(rows.map((row) => [row.pid, row.start]));
  const inGroup = new Set(rows.filter((row) => row.pgid === run.group).map((row) => row.pid));
  // Security: a signalled pid is the run's only while it names the same process (the same start).
  const members = new Set(rows.filter((row) => known(row.pid, row.start)).map((row) => row.pid));
  for (const pid of runMembers(rows, root(), members)) if (!inGroup.has(pid)) found(pid, starts.get(pid));
}

/**
 * Signal the run's processes that left its group (signalRunSteps), giving the event loop turns, within
 * `options.budgetMs`. "out of time" when the table was not all read: processes not yet found may run on.
 */
export function signalRun(
  run: RunTrace,
  root: () => number | undefined,
  signal: NodeJS.Signals,
  kill: KillFn,
  table: ProcessTable,
  options: SearchOptions & Pick<KillOptions, "closing">,
): Promise<SearchEnd> {
  const steps = signalRunSteps(run, root, signal, kill, table, { now: options.now, closing: options.closing });
  return runSearch(steps, () => {}, options);
}

/**
 * SIGKILL the run's processes that left its group as they are found (no stop first), without turns of
 * the event loop, until `deadline` (a time of `now`, default performance.now): for a closing server.
 */
export function killRunNow(
  run: RunTrace,
  kill: KillFn,
  table: ProcessTable,
  deadline: number,
  now: () => number = () => performance.now(),
): SearchEnd {
  return runSearchNow(
    signalRunSteps(run, () => undefined, "SIGKILL", kill, table, { asFound: true }),
    () => {},
    deadline,
    now,
  );
}
