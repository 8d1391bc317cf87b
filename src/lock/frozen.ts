import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Catalog } from "../catalog/catalog.ts";
import { type DigestCache, digestCache, digestFile, digestSkill } from "../catalog/digests.ts";
import { effectiveChain } from "../catalog/tree-chain.ts";
import { readState } from "../refresh/git/git-state.ts";
import type { Skill, TreeNode } from "../skills/skill.ts";
import { skillReadRoot } from "../skills/skill-read.ts";
import { resolveParentPath } from "../skills/tree-paths.ts";
import { isVersionControl, VCS_DIR } from "../sources/version-control.ts";
import type { Logger } from "../util/logger.ts";
import { capitalised } from "../util/plural.ts";
import { statOf } from "../util/stat.ts";
import { lockSkill, skillDigest } from "./build.ts";
import { compareSkill, describeChange, kindChange, type LockChange } from "./compare.ts";
import { entryOf, LockError, type LockedSkill, type Lockfile, readLockfile } from "./lockfile.ts";
import { relativeSkillPath } from "./skill-path.ts";

/** Why a frozen server does not serve a skill, or one file of it: a tool error code, a sentence a model can act on, the differences. */
export interface FrozenRefusal {
  /**
   * LOCK_UNAVAILABLE: the lock is missing, unreadable or invalid (`lockError` says which);
   * SKILL_TOO_LARGE: the lock records the skill as having too many files to review;
   * FILE_NOT_LOCKED: the file asked for is not one the lock records.
   */
  code: "SKILL_NOT_LOCKED" | "SKILL_LOCK_MISMATCH" | "LOCK_UNAVAILABLE" | "SKILL_TOO_LARGE" | "FILE_NOT_LOCKED";
  lockError?: string;
  message: string;
  changes: LockChange[];
}

export interface FrozenGuardOptions {
  /** The main lock's path now (it follows the project root): the one a frozen server needs to start. */
  lockFile: () => string;
  /** The lock that covers `skill` (project or global, lock/location.ts); the main lock when not given. */
  lockFor?: (skill: Skill) => string;
  /** Every lock file now (lock/location.ts), so that `generation` sees a change in any of them. */
  lockFiles?: () => string[];
  logger: Logger;
  /** Digests already computed (the checks before running code): catalog/digests.ts. */
  cache?: DigestCache;
}

interface CachedLock {
  /** The file's identity and times when it was read ("" when there is none). */
  stamp: string;
  lock?: Lockfile;
  error?: LockError;
}

interface LoadedLock {
  lock?: Lockfile;
  error?: LockError;
  file: string;
}

const FROZEN = "this server runs frozen (SKILLHUB_FROZEN / --frozen) and serves only what its lock records";

/**
 * Frozen mode (--frozen, SKILLHUB_FROZEN=1): only reviewed bytes are served.
 * What that means, check by check:
 * - a skill is visible (listed, searchable, loadable) only while its lock
 *   entry exists, is not marked too large, and records the digest of the very
 *   bytes the catalog parsed its name and description from (for a tree node,
 *   its ancestors' too): `refusal`, pure over the lock and the catalog;
 * - every served read is hashed as it is read and compared with the lock
 *   before a byte of it is returned: `checkRead` (a file the lock does not
 *   list is refused, whatever folder it is in);
 * - before code runs, every file of the skill on disk is compared with the
 *   lock (digests cached by file identity): `checkWhole`.
 * No call hashes a whole skill to answer a read. Locks are re-read when their
 * file changes, looked at once per synchronous run (a listing of 10,000 skills
 * stats the lock once).
 */
export class FrozenGuard {
  /** By file: a project's skills and a user's global skills are checked against different locks. */
  private readonly cached = new Map<string, CachedLock>();
  /** Locks already looked at in the current synchronous run. */
  private readonly looked = new Map<string, LoadedLock>();
  /** Bumped whenever a lock's content changes: what was decided from the locks before is stale. */
  private changes = 0;
  private readonly verdicts = new WeakMap<Skill, { changes: number; catalog: Catalog; refusal?: FrozenRefusal }>();
  private readonly paths = new WeakMap<LockedSkill, ReadonlySet<string>>();
  /** Told (after the current run) when a lock read before changed: what is visible may have changed. */
  private readonly listeners = new Set<() => void>();
  /** Refusals already logged (one stderr diagnostic per skill and content). */
  private readonly logged = new Set<string>();

  constructor(private readonly options: FrozenGuardOptions) {}

  /** The lock at `file` (the main lock by default), or the LockError that keeps its skills from being served. */
  load(file: string = this.options.lockFile()): LoadedLock {
    const seen = this.looked.get(file);
    if (seen) return seen;
    if (this.looked.size === 0) queueMicrotask(() => this.looked.clear());
    const now = stampOf(file);
    let c = this.cached.get(file);
    if (!c || c.stamp !== now) {
      const before = c;
      try {
        c = { stamp: now, lock: readLockfile(file) };
      } catch (error) {
        if (!(error instanceof LockError)) throw error;
        c = { stamp: now, error };
      }
      if (before && sameContent(before, c)) {
        // Written again with the same content (`skillhub lock` always writes): nothing to decide again.
        c = { ...before, stamp: now };
      } else {
        this.changes++;
        if (before && this.listeners.size > 0)
          queueMicrotask(() => {
            for (const listener of this.listeners) listener();
          });
      }
      // A missing lock is remembered as missing ("" stamp) and looked for again at every run.
      this.cached.set(file, c);
    }
    const loaded = { lock: c.lock, error: c.error, file };
    this.looked.set(file, loaded);
    return loaded;
  }

  /** Call `listener` whenever a lock read before is found changed (generation() looks); returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A number that changes whenever any lock's content changes (what is visible may have changed). */
  generation(): number {
    for (const file of this.options.lockFiles?.() ?? [this.options.lockFile()]) this.load(file);
    return this.changes;
  }

  /**
   * Why `skill` is not served, or undefined: its lock entry (missing, too large, moved, or recording
   * other bytes than those the catalog parsed), and for a tree node each ancestor whose rules it
   * inherits, and that those are the ancestors its lock records. Pure over the locks and the catalog:
   * no file of the skill is read. Not logged.
   */
  refusal(skill: Skill, catalog: Catalog): FrozenRefusal | undefined {
    const changes = this.generation();
    const known = this.verdicts.get(skill);
    if (known && known.changes === changes && known.catalog === catalog) return known.refusal;
    let refusal: FrozenRefusal | undefined;
    const chain = skill.kind === "tree-node" ? effectiveChain(catalog, skill).reverse() : [skill];
    for (const node of chain) {
      refusal = this.entry(node).refusal;
      if (refusal) break;
    }
    if (!refusal && skill.kind === "tree-node" && skill.tree.inherit) refusal = this.ancestry(skill, chain);
    this.verdicts.set(skill, { changes, catalog, refusal });
    return refusal;
  }

  /** refusal(), logged once per skill and content on stderr: for a lookup by name. */
  check(skill: Skill, catalog: Catalog): FrozenRefusal | undefined {
    const refusal = this.refusal(skill, catalog);
    if (refusal) this.report(skill, refusal);
    return refusal;
  }

  /**
   * Whether bytes just read may be served: `hex` is their sha256, `file` the normalised path asked
   * for under the skill's folder (null: the skill's own SKILL.md or tree node file). The lock must
   * list that file with that digest.
   */
  checkRead(skill: Skill, file: string | null, hex: string): FrozenRefusal | undefined {
    const { locked, refusal, lockName } = this.entry(skill);
    if (refusal || !locked) return this.report(skill, refusal as FrozenRefusal);
    const own = file === null || (skill.kind === "agent-skill" && file === basename(skill.file));
    const name = own ? basename(skill.file) : (file as string);
    const expected = own ? locked.skill_md : entryOf(locked.files, name);
    const actual = `sha256:${hex}`;
    if (expected === actual) return undefined;
    if (expected === undefined)
      return this.report(skill, {
        code: "FILE_NOT_LOCKED",
        message: `File '${name}' of skill '${skill.name}' is not recorded in ${lockName}, and ${FROZEN}: it is not served. load_skill lists the files that can be read; ask the user to review this one and run \`skillhub lock\` if it belongs to the skill.`,
        changes: [
          { kind: "added", subject: "file", id: skill.id, file: name, detail: `not in the lock (${short(actual)})` },
        ],
      });
    const change: LockChange = {
      kind: "changed",
      subject: "file",
      id: skill.id,
      file: name,
      detail: `${short(expected)} → ${short(actual)}`,
    };
    return this.report(skill, this.mismatch(skill, [change], lockName));
  }

  /** The files the lock records for `skill` (relative "/" paths), or undefined when it has no usable entry. */
  lockedFiles(skill: Skill): ReadonlySet<string> | undefined {
    const { locked } = this.entry(skill);
    if (!locked) return undefined;
    let paths = this.paths.get(locked);
    if (!paths) {
      paths = new Set(Object.keys(locked.files));
      this.paths.set(locked, paths);
    }
    return paths;
  }

  /**
   * Every file of `skill` (and, for a tree node, of each ancestor it inherits from) on disk against
   * its lock entry, before code of the skill runs: added, removed and changed files alike. Security:
   * the folder must hold nothing else a process could read or load, since the lock records none of
   * it: no FIFO, device, link out or unreadable folder, and a nested skill's folder only when that
   * skill passes this same check (a `helper/` package planted beside a reviewed `helper.py` would be
   * imported in its place). Version-control metadata refuses any command (`cat .git/x`, `node
   * .git/x.js`); a declared script, which reads what it was reviewed to read, runs beside a `.git`
   * spelled so (a clone's), not beside a folder only another file system takes for one. Digests of
   * unchanged files come from the cache, so a second run costs a walk and a stat per file.
   */
  checkWhole(skill: Skill, catalog: Catalog, runs: "script" | "command" = "command"): FrozenRefusal | undefined {
    const refused = this.check(skill, catalog);
    if (refused) return refused;
    for (const node of skill.kind === "tree-node" ? effectiveChain(catalog, skill).reverse() : [skill]) {
      const { locked, lockName } = this.entry(node);
      if (!locked) continue;
      const cache = this.options.cache ?? digestCache;
      const digests = digestSkill(node, { cache });
      // The skill's own file as it is now, not as the last scan parsed it: a process may read it.
      const folder = skillReadRoot(node);
      const own = (folder.ok && digestFile(folder.root, basename(node.file), cache)?.digest) || "sha256:unreadable";
      const changes = compareSkill(node.id, locked, { ...lockSkill(node, digests), skill_md: own });
      if (changes.length > 0) return this.report(node, this.mismatch(node, changes, lockName));
      for (const path of digests.unrecorded) {
        // A declared script runs beside a clone's own `.git`. A name only another file system takes for it
        // (`.GIT`, `git~1` on Linux) is an ordinary folder that no lock records.
        if (runs === "script" && basename(path) === VCS_DIR) continue;
        const nested = catalog.skillOfFile(join(node.dir, path, "SKILL.md"));
        if (nested && nested !== node && !this.checkWhole(nested, catalog, runs)) continue;
        const vcs = runs === "command" && isVersionControl(basename(path));
        return this.report(node, vcs ? versionControlled(node, path, lockName) : unrecorded(node, path, lockName));
      }
    }
    return undefined;
  }

  /**
   * Why an inheriting tree node's ancestors (`chain`, the node first) are not those its lock records, or
   * undefined. The lock records the tree's nodes, so it gives each node's parent as the scan does: the
   * nearest recorded ancestor. Security: every node of a chain may match its own entry while the chain is
   * not the one reviewed: an ancestor removed (or made no node) since would drop its rules from what the
   * node serves, and its declarations from the scripts it may run.
   */
  private ancestry(skill: TreeNode, chain: readonly Skill[]): FrozenRefusal | undefined {
    const { lock, file } = this.load(this.options.lockFor?.(skill));
    if (!lock) return undefined;
    const prefix = skill.id.slice(0, skill.id.length - skill.name.length);
    const recorded = (path: string) => entryOf(lock.skills, `${prefix}${path}`)?.kind === "tree-node";
    const reviewed = [skill.name];
    let parent = resolveParentPath(skill.name, recorded).parent;
    while (parent !== undefined) {
      reviewed.push(parent);
      parent = resolveParentPath(parent, recorded).parent;
    }
    const served = chain.map((node) => node.name);
    const at = served.findIndex((path, i) => path !== reviewed[i]);
    const differs = at === -1 ? served.length : at;
    if (differs === reviewed.length && differs === served.length) return undefined;
    const detail = `the parent of ${served[differs - 1]} (${served[differs] ?? "none"}; reviewed: ${reviewed[differs] ?? "none"})`;
    return this.mismatch(skill, [{ kind: "changed", subject: "skill", id: skill.id, detail }], basename(file));
  }

  /** The lock entry of one skill (not its ancestors), or why it cannot be served. */
  private entry(skill: Skill): { locked?: LockedSkill; refusal?: FrozenRefusal; lockName: string } {
    const { lock, error, file } = this.load(this.options.lockFor?.(skill));
    const lockName = basename(file);
    if (!lock) {
      // The model is told what is wrong with the lock, but not where the server keeps it: the user's own
      // (their personal skills) is told apart from the project's, which has the same name.
      const personal = file !== this.options.lockFile();
      const named = `${personal ? "the personal " : ""}${lockName}`;
      const missing = error?.code === "LOCK_MISSING";
      const why = missing
        ? `${named} does not exist.`
        : (error?.message ?? `${file} cannot be read.`).split(file).join(named);
      const ask = missing
        ? `review ${personal ? "their own skills" : "the skills"} and run \`skillhub lock${personal ? " --global" : ""}\``
        : "fix the lock";
      return {
        lockName,
        refusal: {
          code: "LOCK_UNAVAILABLE",
          lockError: error?.code ?? "LOCK_INVALID",
          message: `This server runs frozen (SKILLHUB_FROZEN / --frozen) and serves only skills recorded in its lock, but ${why} Ask the user to ${ask}; no skill it covers is served until then.`,
          changes: [],
        },
      };
    }
    const locked = entryOf(lock.skills, skill.id);
    if (!locked)
      return {
        lockName,
        refusal: {
          code: "SKILL_NOT_LOCKED",
          message: `Skill '${skill.name}' (${skill.id}) is not in ${lockName}, and ${FROZEN}: it serves only reviewed skills. Ask the user to review it and run \`skillhub lock\`, or use a locked skill.`,
          changes: [],
        },
      };
    if (locked.too_large)
      return {
        locked,
        lockName,
        refusal: {
          code: "SKILL_TOO_LARGE",
          message: `Skill '${skill.name}' has too many files and folders to review; ${lockName} records it as too large, and ${FROZEN}: it is not served. Ask the user to move what the skill does not need (dependencies, caches) out of its folder and run \`skillhub lock\`.`,
          changes: [],
        },
      };
    const changes: LockChange[] = [];
    const path = relativeSkillPath(skill);
    if (locked.path !== path)
      changes.push({ kind: "changed", subject: "skill", id: skill.id, detail: `moved: ${locked.path} → ${path}` });
    if (locked.kind !== skill.kind)
      changes.push({ kind: "changed", subject: "skill", id: skill.id, detail: kindChange(locked, skill) });
    const digest = skillDigest(skill);
    if (locked.skill_md !== digest)
      changes.push({
        kind: "changed",
        subject: "file",
        id: skill.id,
        file: basename(skill.file),
        detail: `${short(locked.skill_md)} → ${short(digest)}`,
      });
    return changes.length === 0
      ? { locked, lockName }
      : { locked, lockName, refusal: this.mismatch(skill, changes, lockName) };
  }

  /** SKILL_LOCK_MISMATCH for `skill`, whose `changes` differ from the lock named `lockName`. */
  private mismatch(skill: Skill, changes: LockChange[], lockName: string): FrozenRefusal {
    const files = changes.map((c) => c.file ?? c.detail).join(", ");
    return {
      code: "SKILL_LOCK_MISMATCH",
      message: `Skill '${skill.name}' changed since it was reviewed (${files} ${changes.length === 1 ? "differs" : "differ"} from ${lockName}), and ${FROZEN}: it is not served. Tell the user; ${this.restoreAdvice(skill)}.`,
      changes,
    };
  }

  /** What brings a changed skill back (restoreAdvice), with the commit its lock records of its repository. */
  private restoreAdvice(skill: Skill): string {
    if (skill.location !== "remote") return restoreAdvice(skill, undefined);
    const { lock } = this.load(this.options.lockFor?.(skill));
    return restoreAdvice(skill, lock ? entryOf(lock.sources, skill.source)?.commit : undefined);
  }

  /** Log a refusal once per skill and content (stderr, with the lock's path), and return it. */
  private report(skill: Skill, refusal: FrozenRefusal): FrozenRefusal {
    const file = this.options.lockFor?.(skill) ?? this.options.lockFile();
    const what =
      refusal.code === "LOCK_UNAVAILABLE"
        ? unavailable(this.load(file).error, file)
        : refusal.changes.length > 0
          ? `refused ${skill.id}: differs from ${file}: ${refusal.changes.map(describeChange).join("; ")}. ${capitalised(this.restoreAdvice(skill))} (\`skillhub verify\` lists every difference).`
          : `refused ${skill.id}: ${refusal.code} (${file}).`;
    const key = refusal.code === "LOCK_UNAVAILABLE" ? what : `${skill.id}:${skill.hash}:${what}`;
    if (!this.logged.has(key)) {
      this.logged.add(key);
      this.options.logger.warn(`frozen: ${what}`);
    }
    return refusal;
  }
}

/**
 * Why the skills of lock `file` are refused, for the log. A missing lock's advice is the server's own warning
 * (once the skills are known: which lock to write, and whether any skill needs it).
 */
function unavailable(error: LockError | undefined, file: string): string {
  if (error?.code === "LOCK_MISSING") return `no lock at ${file}: the skills it would cover are refused.`;
  return error?.message ?? `cannot read ${file}`;
}

/** Version-control metadata in the folder a command would run in. */
function versionControlled(skill: Skill, path: string, lockName: string): FrozenRefusal {
  return {
    code: "FILE_NOT_LOCKED",
    message: `Skill '${skill.name}' runs no command: its folder holds '${path}' (version-control metadata, which ${lockName} does not record and a command could read or run), and ${FROZEN}. Its declared scripts still run with run_script; to run commands in it, the user can serve it without --frozen.`,
    changes: [{ kind: "added", subject: "file", id: skill.id, file: path, detail: "version-control metadata" }],
  };
}

/** A path in the folder where code would run that the lock does not record. */
function unrecorded(skill: Skill, path: string, lockName: string): FrozenRefusal {
  return {
    code: "FILE_NOT_LOCKED",
    message: `Skill '${skill.name}' cannot run code: its folder holds '${path}', which ${lockName} does not record, and ${FROZEN}: code runs only where every file was reviewed. Tell the user; they can remove '${path}' from the skill's folder (or lock it, if it is a skill of its own).`,
    changes: [{ kind: "added", subject: "file", id: skill.id, file: path, detail: "not recorded by the lock" }],
  };
}

/**
 * What brings a changed skill back. For a repository's skill, by the commit its copy was last synced to
 * (the state the sync keeps in the copy's `.git`):
 * - the commit the lock records (`locked`): the copy's files were changed on this machine, and any sync
 *   discards such changes, a plain `skillhub sync` included, so nothing of them can be adopted: `skillhub
 *   sync --frozen` puts the locked commit's files back, and a change to keep belongs in the repository;
 * - another commit (as after a pull of a newer lock, or a server that followed the branch): `skillhub sync
 *   --frozen` checks the locked commit out, where `skillhub lock` would write the old commit back.
 */
export function restoreAdvice(skill: Pick<Skill, "location" | "root">, locked: string | undefined): string {
  if (skill.location !== "remote") return "they can review the change and run `skillhub lock`, or restore the files";
  if (locked !== undefined && copyCommit(skill.root) === locked)
    return "its repository's copy was changed on this machine, and every sync discards such changes: `skillhub sync --frozen` puts the locked commit's files back (a change to keep belongs in the repository itself)";
  return "`skillhub sync --frozen` puts its repository's copy at the commit the lock records (all that is needed after pulling a newer lock); only to adopt a newer commit the copy followed, whoever reviews it runs `skillhub sync` and commits the lock";
}

/** The commit the last sync checked out in the repository copy that holds `folder`, if SkillHub recorded one. */
function copyCommit(folder: string): string | undefined {
  for (let dir = folder; ; dir = dirname(dir)) {
    if (existsSync(join(dir, VCS_DIR))) return readState(dir)?.commit;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Whether two reads of a lock found the same entries, or failed the same way. */
function sameContent(a: CachedLock, b: CachedLock): boolean {
  if (a.error || b.error) return a.error?.message === b.error?.message && a.lock === undefined && b.lock === undefined;
  return JSON.stringify(a.lock) === JSON.stringify(b.lock);
}

/** A file's identity and times, so that any rewrite (in place or by rename) shows; "" when there is none. */
function stampOf(file: string): string {
  const stat = statOf(file);
  return stat ? `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.mode}` : "";
}

function short(digest: string): string {
  return `${digest.slice(0, 19)}…`;
}

/**
 * Why a frozen server serves no content of `skill` (the tools and the web page alike), or undefined: not
 * frozen, or its lock entry records what the catalog parsed (for a tree node, each ancestor's too).
 */
export function frozenCheck(
  frozen: FrozenGuard | undefined,
  catalog: Catalog,
  skill: Skill,
): FrozenRefusal | undefined {
  return frozen?.refusal(skill, catalog);
}
