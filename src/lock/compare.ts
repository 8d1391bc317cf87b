import { compareText, LOCKED_ENTRIES_MAX } from "../catalog/digests.ts";
import { sameRepository } from "../refresh/git/git-url.ts";
import { program } from "../util/program-name.ts";
import { shownText } from "../util/shown-arg.ts";
import { scrubUrlCredentials } from "../util/url-credentials.ts";
import { entryOf, type GitHead, type LockedSkill, type LockedSource, type Lockfile } from "./lockfile.ts";

/** One difference between the lock and what would be served. */
export interface LockChange {
  kind: "added" | "removed" | "changed";
  /** What differs: a git source, a skill, or one file of a skill. */
  subject: "source" | "skill" | "file";
  /** Source label (subject "source") or qualified skill id. */
  id: string;
  /** For files: the path inside the skill folder ("SKILL.md" for the skill's own file). */
  file?: string;
  /** One sentence for people: "commit 1a2b3c4 → 5d6e7f8", "sha256:ab12… → sha256:cd34…". */
  detail: string;
  /**
   * A skill removed from the lock because another source's skill of its name is served now (it still
   * exists, shadowed, and a lock records served skills only): that skill's qualified id.
   */
  shadowed_by?: string;
  /** A source changed: which of its fields differ. */
  fields?: SourceField[];
}

type SourceField = "url" | "ref" | "commit" | "config";

/** What compareLocks knows of what would be served besides `now`. */
export interface CompareContext {
  /**
   * The git sources' checkouts: a repository without a copy explains its removed source, or is a difference
   * of its own when it is configured at another repository's URL than the lock's, or the lock does not
   * record it.
   */
  heads?: readonly GitHead[];
  /** The repositories another lock pins now (label → that lock's file): removed from this one, saying which. */
  elsewhere?: ReadonlyMap<string, string>;
  /** Skills shadowed now (qualified id → the qualified id of the skill served under their name). */
  shadowed?: ReadonlyMap<string, string>;
  /**
   * Skills in `now` that only a server without the folders given with --skills-dir serves (qualified id →
   * the qualified id of the folder's skill that hides them while it is given): their differences say so.
   */
  unflagged?: ReadonlyMap<string, string>;
}

/** Differences of one skill's entries (lock → now): its file and every added, removed or changed file. Pure. */
export function compareSkill(id: string, locked: LockedSkill, now: LockedSkill): LockChange[] {
  const changes: LockChange[] = [];
  const main = now.path.split("/").pop() ?? "SKILL.md";
  if (locked.path !== now.path)
    changes.push({ kind: "changed", subject: "skill", id, detail: `moved: ${locked.path} → ${now.path}` });
  // A frozen server refuses a skill of another kind than the lock's: verify says so too.
  if (locked.kind !== now.kind)
    changes.push({ kind: "changed", subject: "skill", id, detail: kindChange(locked, now) });
  if (locked.skill_md !== now.skill_md)
    changes.push({
      kind: "changed",
      subject: "file",
      id,
      file: main,
      detail: digestChange(locked.skill_md, now.skill_md),
    });
  if (Boolean(locked.too_large) !== Boolean(now.too_large))
    changes.push({
      kind: "changed",
      subject: "skill",
      id,
      detail: now.too_large
        ? `now has more than ${LOCKED_ENTRIES_MAX} files and folders: too large to lock`
        : `no longer too large to lock: its files can be recorded`,
    });
  // A skill too large to lock has no file list to compare: it is never served frozen.
  if (locked.too_large || now.too_large) return changes;
  const paths = new Set([...Object.keys(locked.files), ...Object.keys(now.files)]);
  for (const file of [...paths].sort(compareText)) {
    const before = entryOf(locked.files, file);
    const after = entryOf(now.files, file);
    if (before === after) continue;
    if (!before) changes.push({ kind: "added", subject: "file", id, file, detail: `new file (${short(after)})` });
    else if (!after)
      changes.push({ kind: "removed", subject: "file", id, file, detail: `file removed (was ${short(before)})` });
    else changes.push({ kind: "changed", subject: "file", id, file, detail: digestChange(before, after) });
  }
  return changes;
}

/** What a skill's change of kind says: `kind agent-skill → tree-node`. */
export function kindChange(locked: Pick<LockedSkill, "kind">, now: Pick<LockedSkill, "kind">): string {
  return `kind ${locked.kind} → ${now.kind}`;
}

/**
 * Everything that differs between `lock` and `now` (a lock built from what
 * would be served): git sources first, then skills by id. Empty = verified. Pure.
 */
export function compareLocks(lock: Lockfile, now: Lockfile, context: CompareContext = {}): LockChange[] {
  const { heads = [], elsewhere = new Map<string, string>(), shadowed = new Map<string, string>() } = context;
  const unflagged = context.unflagged ?? new Map<string, string>();
  const changes: LockChange[] = [];
  // Configured repositories without a served copy: what the configuration says of them all the same.
  const missing = new Map(heads.filter((h) => h.commit === null).map((h) => [h.label, h]));
  const labels = new Set([...Object.keys(lock.sources), ...Object.keys(now.sources), ...missing.keys()]);
  for (const label of [...labels].sort(compareText)) {
    const before = entryOf(lock.sources, label);
    const after = entryOf(now.sources, label);
    const head = missing.get(label);
    if (before && !after) {
      // Configured at another repository's URL or pinned to another tag or commit than the lock's, which a
      // frozen sync does not fetch: that is the difference. (A branch is known only once a copy is there:
      // the repository's config.yaml may choose it.)
      const configured = {
        ...before,
        ...(head && !sameRepository(before.url, head.url) ? { url: head.url } : {}),
        ...(head?.pinned ? { ref: head.ref } : {}),
      };
      const { what, fields } = sourceFields(before, configured);
      if (!elsewhere.has(label) && fields.length > 0)
        changes.push({
          kind: "changed",
          subject: "source",
          id: label,
          detail: `${what.join(", ")} (no local copy)`,
          fields,
        });
      else
        changes.push({
          kind: "removed",
          subject: "source",
          id: label,
          detail: elsewhere.has(label)
            ? `${shown(before.url)} is pinned by ${elsewhere.get(label)} now, not by this lock`
            : missingDetail(shown(before.url), head, missing.has(label)),
        });
    } else if (!before && (after ?? head))
      changes.push({
        kind: "added",
        subject: "source",
        id: label,
        detail: after
          ? `${after.url} (${after.ref}) is not in the lock`
          : `${head?.url} (${head?.ref}) is not in the lock (no local copy)`,
      });
    else if (before && after) {
      const { what, fields } = sourceFields(before, after);
      if (what.length > 0)
        changes.push({ kind: "changed", subject: "source", id: label, detail: what.join(", "), fields });
    }
  }
  const ids = new Set([...Object.keys(lock.skills), ...Object.keys(now.skills)]);
  for (const id of [...ids].sort(compareText)) {
    const before = entryOf(lock.skills, id);
    const after = entryOf(now.skills, id);
    if (before && !after) {
      const pinned = elsewhere.get(before.source);
      const by = pinned ? undefined : shadowed.get(id);
      changes.push({
        kind: "removed",
        subject: "skill",
        id,
        detail: pinned
          ? `its repository is pinned by ${pinned} now (was ${before.path})`
          : by && unflagged.has(by)
            ? `hidden by ${by}, which is served under its name without --skills-dir (was ${before.path})`
            : by
              ? `hidden by ${by} now, which is served under its name (was ${before.path})`
              : `not served any more (was ${before.path})`,
        ...(by ? { shadowed_by: by } : {}),
      });
    } else if (!before && after) {
      const hiddenBy = unflagged.get(id);
      changes.push({
        kind: "added",
        subject: "skill",
        id,
        detail: hiddenBy
          ? `served without --skills-dir (${hiddenBy} hides it while its folder is given), not in the lock (${after.path})`
          : `served but not in the lock (${after.path})`,
      });
    } else if (before && after) changes.push(...compareSkill(id, before, after));
  }
  return changes;
}

/** "changed skill project:pdf file SKILL.md: sha256:… → sha256:…"; a shadowed skill's removal says "shadowed". */
export function describeChange(c: LockChange): string {
  const what = c.subject === "file" ? `skill ${c.id} file ${c.file}` : `${c.subject} ${c.id}`;
  // Security: a file or skill name may hold a line break (or an invisible character): written as `\uXXXX`,
  // so that a difference stays one line and no name can add one that reads as SkillHub's.
  return shownText(`${c.shadowed_by ? "shadowed" : c.kind} ${what}: ${c.detail}`);
}

function digestChange(before: string, after: string): string {
  return `${short(before)} → ${short(after)}`;
}

function short(digest: string | undefined): string {
  return digest ? `${digest.slice(0, 19)}…` : "-";
}

/** Why a locked git source is missing now: no longer configured, no copy yet, or a copy not served. */
/**
 * A URL a lock records, as a change shows it. Security: a lock written before SkillHub took credentials
 * out of every spelling of a URL (`git+https://TOKEN@`, a remote helper's address) may still hold one;
 * verify and sync print changes to logs that CI keeps, so it is hidden (`***`), never echoed.
 */
const shown = (url: string): string => scrubUrlCredentials(url);

function missingDetail(url: string, head: GitHead | undefined, configured: boolean): string {
  if (!configured) return `${url} is no longer configured`;
  return head?.notServed
    ? `the copy of ${url} is not served (${head.notServed.replace(/\.$/, "")})`
    : `no local copy of ${url}; run \`${program()} sync --frozen\` to fetch the locked commit`;
}

/** Which of a source's fields differ (lock → now), each said as `url A → B`. */
function sourceFields(before: LockedSource, after: LockedSource): { what: string[]; fields: SourceField[] } {
  const what: string[] = [];
  const fields: SourceField[] = [];
  if (before.url !== after.url) {
    what.push(`url ${shown(before.url)} → ${shown(after.url)}`);
    fields.push("url");
  }
  if (before.ref !== after.ref) {
    what.push(`ref ${before.ref} → ${after.ref}`);
    fields.push("ref");
  }
  if (before.commit !== after.commit) {
    what.push(`commit ${before.commit.slice(0, 12)} → ${after.commit.slice(0, 12)}`);
    fields.push("commit");
  }
  if (before.config !== after.config) {
    what.push(
      `config.yaml ${!before.config ? `added (${short(after.config)})` : !after.config ? `removed (was ${short(before.config)})` : digestChange(before.config, after.config)}`,
    );
    fields.push("config");
  }
  return { what, fields };
}
