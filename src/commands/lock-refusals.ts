import { describeChange, type LockChange } from "../lock/compare.ts";
import type { FrozenRefusal } from "../lock/frozen.ts";
import type { LockScope } from "../lock/location.ts";
import type { Hub } from "../server/hub.ts";
import { capitalised, plural } from "../util/plural.ts";
import { program } from "../util/program-name.ts";
import { localChangesNote, lockAdvice } from "./lock-advice.ts";

/** One lock as a frozen server reads it, and the skills it keeps from being served. */
interface LockRefusals {
  scope: LockScope;
  file: string;
  /** The lock can be read and is valid. */
  valid: boolean;
  /** Why it cannot (LOCK_MISSING, LOCK_INVALID, LOCK_UNREADABLE, with what to do). */
  error?: { code: string; message: string };
  refused: { id: string; code: FrozenRefusal["code"]; changes: LockChange[] }[];
}

/** What `doctor --frozen` says of the locks: a section of lines, the same in JSON, and what it counts. */
export interface FrozenReport {
  lines: string[];
  json: { locks: LockRefusals[] };
  /** Skills of the catalog a frozen server does not serve. */
  refused: number;
  /** A lock a frozen server needs is missing or invalid, or a skill is refused: doctor exits 1. */
  failed: boolean;
}

/**
 * Each lock a frozen server reads (project, global), whether it is valid, and the skills it refuses with
 * why, as the server decides (FrozenGuard.refusal); for a repository copy edited on this machine, what to
 * do (lock-advice.ts). Undefined when not frozen. `shorten` keeps a long list to its first lines.
 */
export async function frozenReport(
  hub: Hub,
  shorten: (items: string[], what: string) => string[],
): Promise<FrozenReport | undefined> {
  const guard = hub.frozen;
  if (!guard) return undefined;
  const catalog = hub.catalog;
  // The lock a frozen server needs to start: without it, `skillhub --frozen` exits 2.
  const needed = guard.load().error;
  const locks: LockRefusals[] = hub.lockTargets().map(({ scope, file }) => {
    const loaded = guard.load(file).error;
    const error = loaded && lockAdvice(hub, loaded, file);
    return {
      scope,
      file,
      valid: !error,
      ...(error ? { error: { code: error.code, message: error.message } } : {}),
      refused: [],
    };
  });
  const sources = new Set<string>();
  for (const skill of catalog.skills) {
    const refusal = guard.refusal(skill, catalog);
    const lock = locks.find((l) => l.file === hub.lockTargetOf(skill).file);
    if (!refusal || !lock) continue;
    lock.refused.push({ id: skill.id, code: refusal.code, changes: refusal.changes });
    sources.add(skill.source);
  }
  const refused = locks.reduce((n, l) => n + l.refused.length, 0);
  const lines = ["", "Lock (frozen: only what it records is served):"];
  for (const l of locks) {
    const state = l.valid ? "valid" : l.error?.code === "LOCK_MISSING" ? "missing" : "not valid";
    const refuses = l.refused.length > 0 ? `; refuses ${plural(l.refused.length, "skill")}` : "";
    lines.push(`  ${l.file} (${l.scope}): ${state}${refuses}`);
    if (l.error && (l.error.code !== "LOCK_MISSING" || l.refused.length > 0)) lines.push(`    ${l.error.message}`);
    // A lock that cannot be read refuses every skill it covers alike: its error says it once.
    if (l.valid)
      lines.push(
        ...shorten(
          l.refused.map((r) => `    ${r.id}: ${r.code}${r.changes.length > 0 ? ` (${why(r.changes)})` : ""}`),
          "refused skills",
        ),
      );
  }
  lines.push(...(await editedCopies(hub, sources)));
  if (refused > 0) lines.push(`  \`${program()} verify\` lists every difference and what to do.`);
  const failed = Boolean(needed) || locks.some((l) => l.error && l.error.code !== "LOCK_MISSING") || refused > 0;
  return { lines, json: { locks }, refused, failed };
}

function why(changes: readonly LockChange[]): string {
  return changes.map(describeChange).join("; ");
}

/**
 * The repositories (of `sources`, those with a refused skill) whose copy has local changes: any sync discards them, so no sync
 * adopts them (localChangesNote says what to do).
 */
async function editedCopies(hub: Hub, sources: ReadonlySet<string>): Promise<string[]> {
  const repos = (hub.git?.status() ?? []).filter((r) => sources.has(r.name));
  if (repos.length === 0) return [];
  const heads = (await hub.git?.heads()) ?? [];
  return heads
    .filter((h) => h.edited && repos.some((r) => r.name === h.label))
    .map((h) => {
      const lock = hub.frozen?.load(hub.repoLockOf(h.label).file).lock;
      const locked = lock !== undefined && h.label in lock.sources;
      return `  ${capitalised(localChangesNote(h.label, h.edited ?? [], locked))}.`;
    });
}
