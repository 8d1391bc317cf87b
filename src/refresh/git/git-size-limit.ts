import { lstat, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { GitError } from "./git-errors.ts";
import type { GitCall, GitOutput, GitRunner } from "./git-runner.ts";

/**
 * git.max_repo_bytes: what one sync may bring onto disk for a repository copy. git has no limit of its own
 * on what a fetch receives, so a repository holding a 20 GB file (by mistake, or on purpose) would fill
 * the disk until the fetch's time limit. Two checks:
 *
 * - FetchLimit watches the copy's `.git/objects` while each fetch of the sync runs, and ends git's process
 *   group once the files the sync added there pass the limit (a pack as it arrives, `pack/tmp_pack_*`);
 *   then, or when a fetch ended over it, everything the sync added is removed and its refs put back, so
 *   the copy serves its last commit as before.
 * - checkoutWithin adds up the files of the commit to check out, from the trees alone, before checkout
 *   writes them: a pack is compressed, and a 20 GB file of zeros arrives in 20 MB.
 */

/** Milliseconds between two looks at what a running fetch wrote. Only while git runs: no cost when idle. */
const POLL_MS = 200;

/** The least a file takes on disk (a block of most file systems): a million empty files fill a disk too. */
const BLOCK_BYTES = 4096;

/**
 * Config of a watched fetch. Security: the limit relies on each.
 * - fetch.unpackLimit=1: whatever the fetch receives is written as one pack into objects/pack while it
 *   arrives, where the watch sees it grow; under git's default (100 objects) git would instead hold each
 *   object whole in memory and write it loose, so a fetch of one huge file showed nothing until its end.
 * - No repack, maintenance nor commit-graph after the fetch: the sync's objects stay in files of their
 *   own, so that removing them never removes an object the copy had before, nor leaves a file naming
 *   them. A sync that succeeded repacks the copy once it holds many packs (repackWhenMany).
 */
const WATCHED_FETCH_CONFIG = [
  { key: "fetch.unpackLimit", value: "1" },
  { key: "gc.auto", value: "0" },
  { key: "maintenance.auto", value: "false" },
  { key: "fetch.writeCommitGraph", value: "false" },
] as const;

/**
 * Files of `.git` a fetch rewrites besides refs and objects, put back as they were when a sync is undone:
 * with each ref's log, which would otherwise name objects that are gone.
 */
function rewrittenFiles(refs: readonly string[]): string[] {
  return ["shallow", "FETCH_HEAD", ...refs.map((ref) => `logs/${ref}`)];
}

/** `n` bytes, as messages say it. */
function bytes(n: number): string {
  return `${n.toLocaleString("en-US")} bytes`;
}

/** What to do about GIT_TOO_LARGE, in every message of it. */
function raise(max: number): string {
  return `if the repository is meant to be that large, raise the limit of ${bytes(max)}: SKILLHUB_MAX_REPO_BYTES, or git.max_repo_bytes in ~/.skillhub/config.yaml (0 = no limit)`;
}

/**
 * The fetches of one sync into one copy (`dir`), held together to `max` bytes added to its `.git/objects`
 * (0 = no limit): a first clone's fetches, or an existing copy's.
 */
export class FetchLimit {
  private constructor(
    private readonly git: GitRunner,
    private readonly dir: string,
    private readonly max: number,
    private readonly url: string,
    /** Each folder of `.git/objects` there was before the sync, with the names it held (relative, "/"). */
    private readonly known: ReadonlyMap<string, ReadonlySet<string>>,
    /** The refs the sync's fetches write, with what they named before it (undefined: none). */
    private readonly refs: ReadonlyMap<string, string | undefined>,
    /** rewrittenFiles' bytes before the sync (undefined: none). */
    private readonly files: ReadonlyMap<string, Buffer | undefined>,
  ) {}

  /**
   * Note what `dir`'s `.git` holds before the sync's first fetch: the folders of its objects, the values of
   * `refs` (the refs its fetches write) and rewrittenFiles. With `max` 0 nothing is noted nor watched.
   */
  static async start(
    git: GitRunner,
    dir: string,
    options: { max: number; url: string; refs: readonly string[] },
  ): Promise<FetchLimit> {
    const none = new Map();
    if (options.max <= 0) return new FetchLimit(git, dir, 0, options.url, none, none, none);
    const known = new Map<string, Set<string>>();
    const folders = [""];
    for (let at = 0; at < folders.length; at++) {
      const rel = folders[at] as string;
      const entries = await listed(join(dir, ".git", "objects", rel));
      known.set(rel, new Set(entries.map((e) => e.name)));
      for (const e of entries) if (e.isDirectory()) folders.push(rel === "" ? e.name : `${rel}/${e.name}`);
    }
    const refs = new Map<string, string | undefined>();
    for (const ref of options.refs) refs.set(ref, await refValue(git, dir, ref));
    const files = new Map<string, Buffer | undefined>();
    for (const name of rewrittenFiles(options.refs))
      files.set(name, await readFile(join(dir, ".git", name)).catch(() => undefined));
    return new FetchLimit(git, dir, options.max, options.url, known, refs, files);
  }

  /**
   * Run one fetch (`args`, with `call`'s options) watched: git's process group is ended as soon as the sync
   * has added more than the limit to `.git/objects`, and a fetch that ended over it counts the same. Then
   * everything the sync added is removed, its refs and rewrittenFiles put back, and GitError GIT_TOO_LARGE
   * thrown. Otherwise git's output, as GitRunner.run gives it.
   */
  async fetch(args: readonly string[], call: GitCall): Promise<GitOutput> {
    if (this.max <= 0) return this.git.run(args, call);
    const stop = new AbortController();
    let over = false;
    let ended = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let look: Promise<void> = Promise.resolve();
    const next = () => {
      timer = setTimeout(() => {
        look = this.added(false).then(
          (added) => {
            if (added > this.max) {
              over = true;
              stop.abort();
            } else if (!ended) next();
          },
          () => (ended ? undefined : next()),
        );
      }, POLL_MS);
    };
    next();
    let out: GitOutput;
    try {
      out = await this.git.run(args, {
        ...call,
        config: [...(call.config ?? []), ...WATCHED_FETCH_CONFIG],
        signal: stop.signal,
      });
    } finally {
      ended = true;
      clearTimeout(timer);
      await look;
    }
    if (!over && (await this.added(true)) <= this.max) return out;
    await this.undo();
    throw new GitError(
      "GIT_TOO_LARGE",
      `${this.url} sent more than ${bytes(this.max)} for one sync, so git was stopped and what it wrote removed; ${raise(this.max)}, else take the large files out of the repository's history.`,
      { details: { url: this.url, max_bytes: this.max } },
    );
  }

  /**
   * Bytes the sync added to `.git/objects`: the files that were not there before it, in folders that were
   * or not. `deep` false (while git runs) looks only at the folders a fetch writes into as it receives
   * (`objects`, `objects/pack`, and new ones); `deep` true at all of them.
   */
  private async added(deep: boolean): Promise<number> {
    let total = 0;
    await this.walkAdded(deep, async (path, isFolder) => {
      total += isFolder ? await folderBytes(path) : await fileBytes(path);
    });
    return total;
  }

  /** Call `found` with each entry of `.git/objects` the sync added whose folder was there before it. */
  private async walkAdded(deep: boolean, found: (path: string, isFolder: boolean) => Promise<void>): Promise<void> {
    const root = join(this.dir, ".git", "objects");
    for (const [rel, names] of this.known) {
      if (!deep && rel !== "" && rel !== "pack") continue;
      const folder = join(root, rel);
      for (const entry of await listed(folder))
        if (!names.has(entry.name)) await found(join(folder, entry.name), entry.isDirectory());
    }
  }

  /** Remove what the sync added to `.git/objects`, and put its refs and rewrittenFiles back. */
  private async undo(): Promise<void> {
    const added: string[] = [];
    await this.walkAdded(true, async (path) => void added.push(path));
    // Refs first: none may name an object once it is gone.
    for (const [ref, before] of this.refs) {
      if ((await refValue(this.git, this.dir, ref)) === before) continue;
      const args = before ? ["update-ref", "--no-deref", ref, before] : ["update-ref", "-d", ref];
      const out = await this.git.run(args, { cwd: this.dir });
      if (out.code !== 0)
        throw new GitError("GIT_FAILED", `git update-ref failed in ${this.dir}: ${out.stderr.trim()}.`);
    }
    for (const [name, before] of this.files) {
      const path = join(this.dir, ".git", name);
      await (before === undefined ? rm(path, { force: true }) : writeFile(path, before));
    }
    // A repack meanwhile (a `git gc` run by hand, git's own auto gc) moved objects the copy had into a file
    // the sync seems to have added: removing it would leave the copy's commit without its objects. The new
    // files stay then; the refs are back, so they name nothing new.
    if (!(await this.keptAll())) return;
    for (const path of added) await rm(path, { recursive: true, force: true });
  }

  /** Whether every file `.git/objects` held before the sync is still there. */
  private async keptAll(): Promise<boolean> {
    const root = join(this.dir, ".git", "objects");
    for (const [rel, names] of this.known) {
      const now = new Set((await listed(join(root, rel))).map((e) => e.name));
      for (const name of names) if (!now.has(name)) return false;
    }
    return true;
  }
}

/**
 * Refuse (GitError GIT_TOO_LARGE) to check out `commit` in `dir` when its files would take more than `max`
 * bytes (0 = no limit): their sizes from the commit's trees (`git ls-tree -l`), each file at least a
 * block, before checkout writes any of them.
 */
export async function checkoutWithin(
  git: GitRunner,
  dir: string,
  commit: string,
  options: { max: number; url: string },
): Promise<void> {
  if (options.max <= 0) return;
  // -t: the folders too, each a block. Security: a tree may name one deep folder a thousand times over.
  const out = await git.run(["ls-tree", "-r", "-t", "-l", "-z", "--full-tree", commit], { cwd: dir });
  if (out.code !== 0)
    throw new GitError("GIT_FAILED", `git ls-tree failed in ${dir}: ${out.stderr.trim() || `exit ${out.code}`}.`);
  const size = out.truncated ? Number.POSITIVE_INFINITY : checkoutBytes(out.stdout);
  if (size <= options.max) return;
  const took = Number.isFinite(size) ? `take ${bytes(size)} on disk` : "are more than SkillHub lists";
  throw new GitError(
    "GIT_TOO_LARGE",
    `the files of commit ${commit.slice(0, 12)} of ${options.url} ${took}, more than ${bytes(options.max)}, so they were not checked out; ${raise(options.max)}, else take the large files out of the repository.`,
    {
      details: { url: options.url, commit, max_bytes: options.max, ...(Number.isFinite(size) ? { bytes: size } : {}) },
    },
  );
}

/**
 * What the entries of a `git ls-tree -r -t -l -z` listing take on disk: each blob's size rounded up to
 * whole blocks, at least one; a folder (tree) or a submodule's entry (an empty folder), one block. Pure.
 */
export function checkoutBytes(listing: string): number {
  let total = 0;
  for (const entry of listing.split("\0")) {
    const size = /^[0-7]{6} (?:blob|tree|commit) [0-9a-f]+ +(\d+|-)\t/.exec(entry)?.[1];
    if (size === undefined) continue;
    total += size === "-" ? BLOCK_BYTES : Math.max(1, Math.ceil(Number(size) / BLOCK_BYTES)) * BLOCK_BYTES;
  }
  return total;
}

/** Packs a copy may hold before a sync repacks it: under git's own gc.autoPackLimit (50). */
const PACKS_KEPT = 40;

/**
 * Repack the copy in `dir` into one pack once its fetches have left more than PACKS_KEPT: each sync that
 * brings changes adds a pack of its own (WATCHED_FETCH_CONFIG), and lookups slow with every pack. After a
 * sync, never during one: the next sync notes what the copy holds after this. A failure only costs speed.
 */
export async function repackWhenMany(git: GitRunner, dir: string): Promise<void> {
  const packs = (await listed(join(dir, ".git", "objects", "pack"))).filter((e) => e.name.endsWith(".pack"));
  if (packs.length <= PACKS_KEPT) return;
  await git.run(["repack", "-a", "-d", "-q"], {
    cwd: dir,
    config: [
      { key: "gc.auto", value: "0" },
      { key: "repack.writeBitmaps", value: "false" },
    ],
  });
}

/** The entries of `folder`, or none when it is gone (git removes emptied folders and renames as it goes). */
async function listed(folder: string) {
  try {
    return await readdir(folder, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** A file's size, 0 when it is gone (git renamed it: its new name is counted instead). */
async function fileBytes(path: string): Promise<number> {
  try {
    return (await lstat(path)).size;
  } catch {
    return 0;
  }
}

/** The sizes of the files under `folder`, added up. */
async function folderBytes(folder: string): Promise<number> {
  let total = 0;
  for (const entry of await listed(folder)) {
    const path = join(folder, entry.name);
    total += entry.isDirectory() ? await folderBytes(path) : await fileBytes(path);
  }
  return total;
}

/** The object `ref` names in `dir`, or undefined when it names none. */
async function refValue(git: GitRunner, dir: string, ref: string): Promise<string | undefined> {
  const out = await git.run(["rev-parse", "--verify", "--quiet", ref], { cwd: dir });
  return out.code === 0 ? out.stdout.trim() || undefined : undefined;
}
