import {
  closeSync,
  existsSync,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
} from "node:fs";
import { dirname, sep } from "node:path";
import type { Document, YAMLMap } from "yaml";
import { writeAtomicSync } from "../util/atomic-write.ts";
import { ConfigError, errnoCode, errorMessage } from "../util/errors.ts";
import { yaml } from "../util/lazy-yaml.ts";
import { isInside, realOr } from "../util/safe-path.ts";
import type { RepoEntryConfig } from "./schema.ts";

/** A `repos:` item as `skillhub add` writes it: a bare URL when nothing else is set. */
export type RepoItem = string | RepoEntryConfig;

/**
 * A SkillHub config file (~/.skillhub/config.yaml or a project's skillhub.yaml) changed the way a
 * person would: `git.repos` and `sources.dirs` edited in place, every other key, comment and blank
 * line kept as it was. Saved atomically, with its permissions; a file that is a link is changed where
 * the link leads (a dotfiles repository keeps it). A file that is not a YAML mapping is never rewritten.
 */
export class ConfigFileEdit {
  private changed = false;

  private constructor(
    readonly path: string,
    /** Where the file's bytes are: `path`, or where the link `path` leads. */
    private readonly target: string,
    private readonly doc: Document,
    /** The file did not exist: saving creates it. */
    readonly created: boolean,
  ) {}

  /**
   * Open `path` (or start it, with `header` as its first comment). Throws ConfigError when it is not a
   * YAML mapping, or when it is a link that leads out of `within` (a project's file: a link to another of
   * the user's files must not be rewritten by a command run in a cloned repository).
   */
  static open(path: string, header: string, within?: string): ConfigFileEdit {
    const Y = yaml();
    const target = linkTarget(path, within);
    if (!existsSync(target)) {
      const doc = new Y.Document({});
      doc.commentBefore = header;
      return new ConfigFileEdit(path, target, doc, true);
    }
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new ConfigError(`cannot read ${path}: ${errorMessage(error)}.`, { key: path });
    }
    const doc: Document = Y.parseDocument(text);
    if (doc.errors.length > 0)
      throw new ConfigError(`${path} is not valid YAML (${doc.errors[0]?.message.split("\n")[0]}); fix it first.`, {
        key: path,
      });
    if (doc.contents === null) doc.contents = doc.createNode({});
    if (!Y.isMap(doc.contents))
      throw new ConfigError(`${path} is not a YAML mapping (keys and values); fix it first.`, { key: path });
    for (const key of ["git.repos", "sources.dirs"]) {
      const value = doc.getIn(key.split("."), true);
      if (value !== undefined && !Y.isSeq(value) && !(Y.isScalar(value) && value.value === null))
        throw new ConfigError(`${path}: ${key} is not a list; fix it first.`, { key });
    }
    return new ConfigFileEdit(path, target, doc, false);
  }

  /**
   * Apply `change` to the file as it is now, and save it if anything changed, while holding `<file>.lock`:
   * two commands changing one file at once (or a hand edit during a long fetch) lose nothing, since each
   * reads the file only once the other is done.
   */
  static update<T>(path: string, header: string, within: string | undefined, change: (edit: ConfigFileEdit) => T): T {
    const target = linkTarget(path, within);
    mkdirSync(dirname(target), { recursive: true });
    return whileLocked(`${target}.lock`, (held) => {
      const edit = ConfigFileEdit.open(path, header, within);
      const result = change(edit);
      if (edit.changed && !held())
        throw new ConfigError(
          `${path} was not changed: this command held ${target}.lock so long that another took it over; run it again.`,
          { key: path },
        );
      if (edit.changed) edit.save();
      return result;
    });
  }

  /** The `git.repos` items, as written. */
  repos(): RepoItem[] {
    return this.list("git.repos") as RepoItem[];
  }

  /** The `sources.dirs` items, as written. */
  dirs(): string[] {
    return this.list("sources.dirs").map(String);
  }

  /** Append a repository, or replace item `index` with it. */
  setRepo(item: RepoItem, index?: number): void {
    this.set(["git", "repos"], item, index);
  }

  addDir(dir: string): void {
    this.set(["sources", "dirs"], dir);
  }

  removeRepo(index: number): void {
    this.changed = true;
    this.doc.deleteIn(["git", "repos", index]);
  }

  removeDir(index: number): void {
    this.changed = true;
    this.doc.deleteIn(["sources", "dirs", index]);
  }

  private save(): void {
    writeAtomicSync(this.target, [this.doc.toString({ lineWidth: 0 })]);
  }

  private list(key: string): unknown[] {
    const value = this.doc.getIn(key.split("."));
    return Array.isArray(value) ? value : yaml().isSeq(value) ? (value.toJSON() as unknown[]) : [];
  }

  private set(path: [string, string], item: unknown, index?: number): void {
    this.changed = true;
    const Y = yaml();
    const node = this.doc.createNode(item);
    const current = this.doc.getIn(path, true);
    // An empty `[]` or `{}` on the way (`repos: []`, left when the last entry was removed) is written into
    // as a block one, as a person would: a project commits this file, and a flow list of mappings reads badly.
    for (const on of [this.doc.contents, this.doc.getIn([path[0]], true), current]) blockIfEmpty(on);
    if (index !== undefined) this.doc.setIn([...path, index], node);
    else if (Y.isSeq(current)) current.items.push(node);
    else {
      const section = this.doc.getIn([path[0]], true);
      // `git:` with nothing under it is a null scalar: a mapping takes its place.
      if (!Y.isMap(section)) this.doc.setIn([path[0]], this.doc.createNode({}));
      (this.doc.getIn([path[0]], true) as YAMLMap).set(path[1], this.doc.createNode([item]));
    }
  }
}

/** An empty flow collection (`[]`, `{}`) becomes a block one; one holding items keeps the style it was written in. */
function blockIfEmpty(node: unknown): void {
  if (yaml().isCollection(node) && node.flow === true && node.items.length === 0) node.flow = false;
}

/** Where `path`'s bytes are: itself, or where it leads when it is a link (inside `within`, when given). */
function linkTarget(path: string, within: string | undefined): string {
  if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() !== true) return path;
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    throw new ConfigError(
      `${path} is a link that leads nowhere (${errnoCode(error) ?? errorMessage(error)}); fix it first.`,
      {
        key: path,
      },
    );
  }
  // A repository's own files (`.git/HEAD` reads as a YAML mapping) are never a config file to rewrite.
  if (real.split(sep).includes(".git"))
    throw new ConfigError(`${path} is a link into a .git folder (${real}); put a file in the link's place.`, {
      key: path,
    });
  if (within !== undefined && !isInside(realOr(within), real))
    throw new ConfigError(
      `${path} is a link to ${real}, outside the project: change that file by hand, or put a file in the link's place.`,
      { key: path },
    );
  return real;
}

/** How long a command waits for another to finish changing a file; a lock this old was left by a crash. */
const LOCK_WAIT_MS = 10_000;
const STALE_LOCK_MS = 30_000;

/** What a file lock uses of the outside world: production defaults, a test's clock and interleavings. */
export interface FileLockDeps {
  now: () => number;
  sleep: (ms: number) => void;
  /** Called when a lock was found stale, just before taking it over (a test runs another command here). */
  onStale?: () => void;
}

const LIVE: FileLockDeps = { now: Date.now, sleep: (ms) => Bun.sleepSync(ms) };

/** A lock file this command holds. */
export interface HeldLock {
  /** Whether the lock is still this command's: one slower than STALE_LOCK_MS may have had it taken over. */
  held(): boolean;
  /** Remove the lock, if it is still this command's. */
  release(): void;
}

/** Create the lock file `lock` exclusively, waiting for a live one and taking over a stale one. */
export function lockFile(lock: string, deps: FileLockDeps = LIVE): HeldLock {
  const mine = acquire(lock, deps);
  return {
    held: () => sameFile(lstatSync(lock, { throwIfNoEntry: false }), mine),
    release: () => removeIfStill(lock, mine),
  };
}

/** Run `action` holding the lock file `lock`; it is given held(), to ask right before writing. */
function whileLocked<T>(lock: string, action: (held: () => boolean) => T): T {
  const mine = lockFile(lock);
  try {
    return action(mine.held);
  } finally {
    mine.release();
  }
}

/** Create `lock`, waiting for a live one and taking over a stale one; the identity of the file created. */
function acquire(lock: string, deps: FileLockDeps): Stats {
  const deadline = deps.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(lock, "wx");
      try {
        return fstatSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if (errnoCode(error) !== "EEXIST")
        throw new ConfigError(`cannot create ${lock}: ${errorMessage(error)}.`, { key: lock });
    }
    const seen = lstatSync(lock, { throwIfNoEntry: false });
    if (seen === undefined) continue;
    if (deps.now() - seen.mtimeMs > STALE_LOCK_MS) {
      deps.onStale?.();
      removeIfStill(lock, seen);
    } else if (deps.now() > deadline)
      throw new ConfigError(
        `another skillhub command is changing this file (${lock} exists): try again, or delete ${lock} if none is running.`,
        { key: lock },
      );
    else deps.sleep(20);
  }
}

/**
 * Remove `lock` only if it is still the file `seen` (same device, inode, and modification time). Security:
 * two commands that both found one stale lock must not both take it: the second would otherwise remove the
 * lock the first has just created in its place, and both would change the file. So the lock is first
 * moved aside under a name of this command's own (one atomic rename), and what was moved is looked at:
 * the stale lock is removed; a live one (another command got there first and holds it) is put back
 * under its name with a link, which never replaces a lock made meanwhile.
 */
function removeIfStill(lock: string, seen: Stats): void {
  const aside = `${lock}.${process.pid}-${Math.random().toString(36).slice(2, 10)}.aside`;
  try {
    renameSync(lock, aside);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return;
    throw new ConfigError(`cannot take over ${lock}: ${errorMessage(error)}.`, { key: lock });
  }
  try {
    if (!sameFile(lstatSync(aside), seen)) linkSync(aside, lock);
  } catch {
    // Its name was taken again meanwhile: that command holds the lock now, and the one whose lock this
    // was finds it is no longer held (held()) before it writes.
  } finally {
    rmSync(aside, { force: true });
  }
}

/** Whether `now` is the very file `then` was: a lock made again in its place (even with the same inode) is not. */
function sameFile(now: Stats | undefined, then: Stats): boolean {
  return now !== undefined && now.dev === then.dev && now.ino === then.ino && now.mtimeMs === then.mtimeMs;
}
