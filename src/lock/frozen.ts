import { statSync } from "node:fs";
import type { Catalog } from "../catalog/catalog.ts";
import { effectiveChain } from "../catalog/tree-chain.ts";
import type { Skill } from "../skills/skill.ts";
import type { Logger } from "../util/logger.ts";
import { lockSkill } from "./build.ts";
import { compareSkill, describeChange, type LockChange } from "./compare.ts";
import { LockError, type Lockfile, readLockfile } from "./lockfile.ts";

/** Why a frozen server does not serve a skill: a tool error code, a sentence a model can act on, the differences. */
export interface FrozenRefusal {
  /** LOCK_UNAVAILABLE: the lock is missing, unreadable or invalid (`lockError` says which). */
  code: "SKILL_NOT_LOCKED" | "SKILL_LOCK_MISMATCH" | "LOCK_UNAVAILABLE";
  lockError?: string;
  message: string;
  changes: LockChange[];
}

export interface FrozenGuardOptions {
  /** The main lock's path now (it follows the project root): the one a frozen server needs to start. */
  lockFile: () => string;
  /** The lock that covers `skill` (project or global, lock/location.ts); the main lock when not given. */
  lockFor?: (skill: Skill) => string;
  logger: Logger;
}

interface CachedLock {
  file: string;
  mtimeMs: number;
  size: number;
  lock?: Lockfile;
  error?: LockError;
}

/**
 * Frozen mode (--frozen, SKILLHUB_FROZEN=1): a skill is served only when its
 * files hash to what skillhub.lock records, so CI and teams serve exactly
 * what was reviewed. The skill's files are hashed at every lookup (a change
 * made a second ago is caught); the lock is re-read when its file changes.
 */
export class FrozenGuard {
  /** By file: a project's skills and a user's global skills are checked against different locks. */
  private readonly cached = new Map<string, CachedLock>();
  /** Refusals already logged (one stderr diagnostic per skill and content). */
  private readonly logged = new Set<string>();

  constructor(private readonly options: FrozenGuardOptions) {}

  /** The lock at `file` (the main lock by default), or the LockError that keeps its skills from being served. */
  load(file: string = this.options.lockFile()): { lock?: Lockfile; error?: LockError; file: string } {
    const stat = statSync(file, { throwIfNoEntry: false });
    const c = this.cached.get(file);
    if (c && stat && c.mtimeMs === stat.mtimeMs && c.size === stat.size) return { ...c };
    let next: CachedLock;
    try {
      next = { file, mtimeMs: stat?.mtimeMs ?? -1, size: stat?.size ?? -1, lock: readLockfile(file) };
    } catch (error) {
      if (!(error instanceof LockError)) throw error;
      next = { file, mtimeMs: stat?.mtimeMs ?? -1, size: stat?.size ?? -1, error };
    }
    // A missing lock is looked for again at every call (it may be written in a moment).
    if (stat) this.cached.set(file, next);
    else this.cached.delete(file);
    return { ...next };
  }

  /** undefined when `skill` may be served; else why not. */
  check(skill: Skill): FrozenRefusal | undefined {
    const { lock, error, file } = this.load(this.options.lockFor?.(skill));
    if (!lock) {
      const refusal: FrozenRefusal = {
        code: "LOCK_UNAVAILABLE",
        lockError: error?.code ?? "LOCK_INVALID",
        message: `This server runs frozen (SKILLHUB_FROZEN / --frozen) and serves only skills recorded in its lock, but ${error?.message ?? "the lock cannot be read."} Ask the user to fix the lock; no skill is served until then.`,
        changes: [],
      };
      this.log(`lock:${error?.message}`, `frozen: ${error?.message ?? `cannot read ${file}`}`);
      return refusal;
    }
    const locked = lock.skills[skill.id];
    if (!locked) {
      const message = `Skill '${skill.name}' (${skill.id}) is not in ${file}, and this server runs frozen (SKILLHUB_FROZEN / --frozen): it serves only reviewed skills. Ask the user to review it and run \`skillhub lock\`, or use a locked skill.`;
      this.log(`new:${skill.id}:${skill.hash}`, `frozen: refused ${skill.id}: not in the lock ${file}.`);
      return { code: "SKILL_NOT_LOCKED", message, changes: [] };
    }
    const now = lockSkill(skill);
    // Deleted since the scan: the tool answers as for any vanished skill.
    if (!now) return undefined;
    const changes = compareSkill(skill.id, locked, now);
    if (changes.length === 0) return undefined;
    const list = changes.map(describeChange);
    this.log(
      `changed:${skill.id}:${list.join("|")}`,
      `frozen: refused ${skill.id}: its files differ from ${file}: ${list.join("; ")}. Review the change and run \`skillhub lock\`, or restore the files (\`skillhub verify\` lists every difference).`,
    );
    const files = changes.map((c) => c.file ?? c.detail).join(", ");
    return {
      code: "SKILL_LOCK_MISMATCH",
      message: `Skill '${skill.name}' changed since it was reviewed (${files} ${changes.length === 1 ? "differs" : "differ"} from ${file}), and this server runs frozen (SKILLHUB_FROZEN / --frozen): it is not served. Tell the user; they can review the change and run \`skillhub lock\`, or restore the files.`,
      changes,
    };
  }

  private log(key: string, line: string): void {
    if (this.logged.has(key)) return;
    this.logged.add(key);
    this.options.logger.warn(line);
  }
}

/**
 * Why a frozen server serves no content of `skill` (the tools and the web page alike), or undefined: not
 * frozen, or every file matches the lock. A tree node serves its ancestors' content and files too: each
 * of them must match.
 */
export function frozenCheck(
  frozen: FrozenGuard | undefined,
  catalog: Catalog,
  skill: Skill,
): FrozenRefusal | undefined {
  if (!frozen) return undefined;
  const chain = effectiveChain(catalog, skill).reverse();
  return chain.reduce<FrozenRefusal | undefined>((found, node) => found ?? frozen.check(node), undefined);
}
