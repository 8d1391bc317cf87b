import { existsSync, realpathSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { MAX_CONFIG_BYTES } from "../../config/load.ts";
import type { Config } from "../../config/schema.ts";
import { BRANCH_NAME } from "../../config/schema-values.ts";
import { SOURCE_CONFIG_FILE } from "../../config/source-config.ts";
import type { GitHead } from "../../lock/lockfile.ts";
import { errorMessage } from "../../util/errors.ts";
import type { Logger } from "../../util/logger.ts";
import { readNamedFile } from "../../util/named-file.ts";
import { capitalised } from "../../util/plural.ts";
import { program } from "../../util/program-name.ts";
import { timerDelay } from "../../util/timer-limit.ts";
import { repoTargets } from "../repo-targets.ts";
import { ForcedFetches } from "./forced-fetches.ts";
import { repoAuth } from "./git-auth.ts";
import { repoSkillsDir } from "./git-copies.ts";
import { copyChanges } from "./git-discards.ts";
import { GitError } from "./git-errors.ts";
import { hasCommit } from "./git-fetch.ts";
import { removeLeftoverClones } from "./git-leftovers.ts";
import { DEFAULT_LOCK_WAIT_MS, lockCopy } from "./git-lock.ts";
import { type ForeignCopy, foreignCopy } from "./git-origin.ts";
import { goesBackFrom, head, syncRepo } from "./git-repo.ts";
import { GitRunner } from "./git-runner.ts";
import { fetchedFor, type RepoState, readState, recordFailure } from "./git-state.ts";
import type { GitSyncOptions, LockedRepo, RepoReport, SyncOutcome } from "./git-sync-types.ts";
import { namedRef, type RepoTarget, refOf, type SyncWant, updateCommand } from "./git-target.ts";
import { type CopyVerdict, verifyCopy } from "./git-trust.ts";

/**
 * The digest of the copy's `config.yaml` as the settings loader would read it (config/load.ts), or
 * undefined when it has none it could read (then none is applied either).
 */
function configDigest(copy: string): string | undefined {
  const read = readNamedFile({ path: join(copy, SOURCE_CONFIG_FILE), maxBytes: MAX_CONFIG_BYTES, within: copy });
  return read.ok ? `sha256:${read.sha256}` : undefined;
}

/** What serves again a copy that is not `t`'s repository's. */
function cloneAgain(t: RepoTarget): string {
  return `the next sync (\`${program()} sync\`, refresh_skills) clones ${t.spec.url} again in its place`;
}

/** The verdict on a repository with no copy on disk yet. */
const NO_COPY = "there is no copy yet";

/**
 * Keeps local copies of the team's skill repositories: a first sync at
 * start-up, then one every `intervalMs`, never two at once. Listeners hear about every completed sync.
 */
export class GitSync {
  private readonly git: GitRunner;
  /** The targets for the lock they were made for (their copies are that lock's: repo-targets.ts). */
  private made: { lock: string | undefined; targets: readonly RepoTarget[] };
  private readonly listeners = new Set<(outcome: SyncOutcome) => void>();
  private readonly failing = new Set<string>();
  /** Targets whose path leads out of their copy, warned about once. */
  private readonly outside = new Set<string>();
  /** Why each copy that is another repository's is not served, by slug: said once for each reason. */
  private readonly foreignSaid = new Map<string, string>();
  private running?: Promise<SyncOutcome>;
  private timer: unknown;
  private leftoversRemoved = false;
  private lastSync: string | null = null;
  /** Frozen: the branch the lock records for a repository whose configured one differs (lockedBranch), by label. */
  private readonly lockedBranches = new Map<string, string>();
  private readonly now: () => number;
  /** trust.allowed_signers: commits whose signature this process verified (a commit never changes). */
  private readonly signed = new Set<string>();
  private readonly notOlder = new Set<string>();
  /** trust.allowed_signers: each copy's last verdict by slug: null when verified, else why it is not served. */
  private readonly trust = new Map<string, CopyVerdict | null>();
  /** The copies on disk were verified before the first sync. */
  private verifiedAtStart = false;
  /** When refresh_skills last fetched each copy: it fetches one at most once a minute. */
  private readonly forcedFetches: ForcedFetches;

  constructor(private readonly options: GitSyncOptions) {
    this.now = options.now ?? Date.now;
    this.forcedFetches = new ForcedFetches(this.now);
    this.git = new GitRunner({ timeoutMs: options.timeoutMs, ...options.runner });
    const lock = options.lockFile?.();
    this.made = { lock, targets: repoTargets({ ...options, lock }) };
    for (const target of this.made.targets) {
      const state = readState(target.dir);
      if (state && (this.lastSync === null || state.last_sync < this.lastSync)) this.lastSync = state.last_sync;
    }
  }

  /**
   * The configured repositories, their copies those of the lock that pins them now (lockFile): a
   * server whose project root changes serves, and syncs, the new project's copies.
   */
  get targets(): readonly RepoTarget[] {
    const lock = this.options.lockFile?.();
    if (lock !== this.made.lock) this.made = { lock, targets: repoTargets({ ...this.options, lock }) };
    return this.made.targets;
  }

  /** Build one from the configuration, or undefined when no repository is configured. */
  static fromConfig(config: Config, logger: Logger, overrides: Partial<GitSyncOptions> = {}): GitSync | undefined {
    if (config.git.repos.length === 0) return undefined;
    return new GitSync({
      repos: config.git.repos,
      branch: config.git.branch,
      ref: config.git.ref,
      allowedSigners: config.trust.allowed_signers,
      frozen: config.lock.frozen,
      token: config.git.token,
      maxRepoBytes: config.git.max_repo_bytes,
      home: config.home,
      logger,
      intervalMs: config.refresh.enabled ? config.refresh.interval_minutes * 60_000 : 0,
      ...overrides,
    });
  }

  /**
   * Each copy's skills folder: its configured path, else `skills/` when present, else its root (after
   * the local folders). A path that a link leads out of the copy, or into its .git, is not served.
   * Security: a copy that is not the configured repository's (its origin: git-origin.ts) is not listed;
   * with trust.allowed_signers, only copies verified by verifyCopies are: a copy cloned before the setting
   * was made, or changed on disk since, is not served.
   */
  sources(): { label: string; dir: string }[] {
    return this.targets
      .filter((t) => this.served(t))
      .flatMap((t) => {
        const dir = repoSkillsDir(t.dir, t.path);
        if (dir) return [{ label: t.label, dir }];
        if (!this.outside.has(t.label))
          this.options.logger.warn(
            `repo ${t.label}: ${t.path} leads outside the repository through a link; not served.`,
          );
        this.outside.add(t.label);
        return [];
      });
  }

  /**
   * trust.allowed_signers: check every copy on disk (its checked-out commit signed by an allowed key, its
   * files exactly that commit's: git-trust.ts) and keep the verdicts sources() serves by. Run at start,
   * before the first catalog, and after every sync. Returns whether a verdict changed. Never throws.
   */
  async verifyCopies(): Promise<boolean> {
    const signers = this.options.allowedSigners;
    if (!signers) return false;
    let changed = false;
    for (const target of this.targets) {
      let verdict: CopyVerdict | null;
      if (!existsSync(join(target.dir, ".git"))) verdict = { why: NO_COPY, fix: "a sync that succeeds makes one" };
      else {
        try {
          verdict = (await verifyCopy(target, { git: this.git, signed: this.signed }, signers)) ?? null;
        } catch (error) {
          verdict = {
            why: `it cannot be checked (${errorMessage(error)})`,
            fix: `it is checked again after the next sync (\`${program()} sync\`, refresh_skills)`,
          };
        }
      }
      const before = this.trust.get(target.spec.slug);
      if (before === verdict || (before && verdict && before.why === verdict.why)) continue;
      this.trust.set(target.spec.slug, verdict);
      changed = true;
      const log = this.options.logger;
      if (verdict === null) {
        if (before !== undefined)
          // A first clone was never refused: "again" would send its reader looking for an earlier failure.
          log.info(
            `repo ${target.label}: the copy is verified (trust.allowed_signers)${before?.why === NO_COPY ? "" : "; served again"}.`,
          );
      } else if (existsSync(join(target.dir, ".git")))
        log.error(
          `repo ${target.label}: the copy in ${target.dir} is not served: ${verdict.why.replace(/\.$/, "")} (trust.allowed_signers). ${capitalised(verdict.fix)}.`,
        );
    }
    return changed;
  }

  /** Each copy's `config.yaml` (at the repository root). */
  configFiles(): string[] {
    return this.targets.map((t) => join(t.dir, "config.yaml"));
  }

  /** What is on disk now, for `doctor`. */
  status(): {
    name: string;
    url: string;
    dir: string;
    branch: string;
    ref?: string;
    path?: string;
    project?: true;
    state?: RepoState;
    /**
     * The copy's skills are served: there is a copy, it is the repository's (its origin), its path stays
     * inside it, trust.allowed_signers passed it.
     */
    served: boolean;
    /** Why the copy on disk is not served: another repository's (`foreign_origin`), or trust.allowed_signers refuses it. */
    not_served?: string;
    /** What serves it again. */
    fix?: string;
    /** The copy is another repository's: the origin it records (null: none), and the configured one. */
    foreign_origin?: { found: string | null; expected: string };
  }[] {
    return this.targets.map((t) => {
      const copy = existsSync(join(t.dir, ".git"));
      const foreign = this.foreign(t);
      // A copy on disk that is not served; no copy at all is said by `state` being absent.
      const refusal = copy ? this.refusal(t, foreign) : undefined;
      return {
        name: t.label,
        url: t.spec.url,
        dir: t.dir,
        branch: t.branch,
        ...(t.ref ? { ref: t.ref } : {}),
        ...(t.path ? { path: t.path } : {}),
        ...(t.project ? { project: t.project } : {}),
        state: readState(t.dir),
        served: copy && refusal === undefined && repoSkillsDir(t.dir, t.path) !== undefined,
        ...(refusal ? { not_served: refusal.why, fix: refusal.fix } : {}),
        ...(copy && foreign ? { foreign_origin: { found: foreign.found ?? null, expected: t.spec.url } } : {}),
      };
    });
  }

  /** Each repository's copy's checked-out commit by label (head()): null without a usable copy. */
  async checkouts(): Promise<Map<string, string | null>> {
    const commits = await Promise.all(this.targets.map((t) => head(t.dir, { git: this.git })));
    return new Map(this.targets.map((t, i) => [t.label, commits[i] ?? null]));
  }

  /**
   * With trust.allowed_signers, whether repository `label`'s copy is at a commit known not to go on from
   * `locked`, the lock's (goesBackFrom): a lock never records it, as no sync takes it without `--update`.
   */
  async goesBack(label: string, locked: string): Promise<boolean> {
    const t = this.targets.find((t) => t.label === label);
    return Boolean(this.options.allowedSigners && t && (await goesBackFrom(t.dir, { git: this.git }, locked)));
  }

  /** Whether repository `label`'s copy holds `commit` (so that `git diff` there can show what followed it). */
  async holds(label: string, commit: string): Promise<boolean> {
    const t = this.targets.find((t) => t.label === label);
    return Boolean(t && (await hasCommit(t.dir, commit, { git: this.git })));
  }

  /** Whether the copy in `dir` is one of these repositories' and may be served now (served()). */
  servesCopy(dir: string): boolean {
    return this.targets.some((t) => t.dir === dir && this.served(t));
  }

  /**
   * Whether a copy may be served: when it is a copy of its repository (foreign), and, with trust.allowed_signers,
   * once verifyCopies passed it.
   */
  private served(t: RepoTarget): boolean {
    return this.refusal(t) === undefined;
  }

  /**
   * Why `t`'s copy may not be served, and what serves it again; undefined when it may. `foreign` is
   * foreign(t), when the caller has it. A copy whose origin is another repository is said to be that; one
   * whose origin cannot be read at all, by what trust.allowed_signers's check found wrong with it, which
   * says more, when it found anything.
   */
  private refusal(t: RepoTarget, foreign: ForeignCopy | undefined = this.foreign(t)): CopyVerdict | undefined {
    const verdict = this.options.allowedSigners ? this.trust.get(t.spec.slug) : null;
    if (foreign && (foreign.found !== undefined || !verdict)) return { why: foreign.why, fix: cloneAgain(t) };
    if (verdict === null) return undefined;
    return verdict ?? { why: "not verified yet", fix: "it is checked at the next sync" };
  }

  /**
   * Whether `t`'s copy is another repository's (git-origin.ts): read from its .git/config at every call,
   * so a copy changed on disk is not served from the next rescan on. Logged once for each reason.
   */
  private foreign(t: RepoTarget): ForeignCopy | undefined {
    const foreign = foreignCopy(t.dir, t.spec.url);
    const slug = t.spec.slug;
    if (!foreign) {
      this.foreignSaid.delete(slug);
      return undefined;
    }
    if (this.foreignSaid.get(slug) !== foreign.why) {
      this.foreignSaid.set(slug, foreign.why);
      this.options.logger.error(
        `repo ${t.label}: the copy in ${t.dir} is not served: ${foreign.why}. ${capitalised(cloneAgain(t))}.`,
      );
    }
    return foreign;
  }

  /**
   * Each repository's served copy: label, URL, ref, checked-out commit, local changes and ignored files,
   * for the lock. The commit is null without a copy, and for a copy trust.allowed_signers keeps from being
   * served: a lock never records a commit nobody verified. When git cannot list the changes, `unchecked`
   * says why, and nothing is said of them.
   */
  async heads(): Promise<GitHead[]> {
    return Promise.all(
      this.targets.map(async (t) => {
        const copy = existsSync(join(t.dir, ".git"));
        const base = {
          label: t.label,
          url: t.spec.url,
          ref: this.lockedBranches.get(t.label) ?? refOf(t),
          ...(t.ref ? { pinned: true as const } : {}),
        };
        const refusal = this.refusal(t);
        if (refusal) return { ...base, commit: null, ...(copy ? { notServed: refusal.why } : {}) };
        const commit = copy ? await head(t.dir, { git: this.git }) : null;
        if (!commit) return { ...base, commit };
        // The copy's commit is the tip of the ref it was last synced for: another tag, or the default branch
        // before the repository's config.yaml (known once the copy is there) chose its own.
        const fetched = fetchedFor(t.dir);
        const at = { ...base, commit, ...(fetched && fetched !== base.ref ? { fetchedFor: fetched } : {}) };
        const config = configDigest(t.dir);
        try {
          const { edited, ignored } = await this.servedChanges(t);
          return {
            ...at,
            ...(config ? { config } : {}),
            ...(edited.length > 0 ? { edited } : {}),
            ...(ignored.length > 0 ? { ignored } : {}),
          };
        } catch (error) {
          return { ...at, ...(config ? { config } : {}), unchecked: errorMessage(error) };
        }
      }),
    );
  }

  /**
   * What `t`'s copy holds besides its checkout (git-discards.ts) in what a lock records of it, its skills
   * folder and its `config.yaml`: what the next sync discards (`edited`, relative to the copy; a
   * `config.yaml` no commit holds, which git ignores, included) and the files git ignores in the skills
   * folder (relative to it). Throws GitError when git cannot list them.
   */
  private async servedChanges(t: RepoTarget): Promise<{ edited: string[]; ignored: string[] }> {
    const settings = await copyChanges(t.dir, this.git, { folder: SOURCE_CONFIG_FILE, ignored: true });
    const config = [...settings.discarded, ...settings.ignored];
    const served = repoSkillsDir(t.dir, t.path);
    // None of the skills folder when it leads out of the copy: nothing of it is served.
    if (served === undefined) return { edited: config, ignored: [] };
    // Through a link inside the copy, the folder git knows is the one it leads to.
    const within = existsSync(served) ? relative(realpathSync(t.dir), realpathSync(served)) : relative(t.dir, served);
    const folder = within.split(sep).join("/");
    const changes = await copyChanges(t.dir, this.git, { folder, ignored: true });
    const prefix = folder === "" ? "" : `${folder}/`;
    return {
      edited: [...new Set([...changes.discarded, ...config])],
      ignored: changes.ignored.filter((path) => path !== SOURCE_CONFIG_FILE).map((path) => path.slice(prefix.length)),
    };
  }

  get lastSyncTime(): string | null {
    return this.lastSync;
  }

  onSynced(listener: (outcome: SyncOutcome) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The start-up sync: waits for it (a reachable remote is synced before the
   * first catalog), but no longer than `startupWaitMs`; a slower sync goes on
   * and its listeners rebuild the catalog when it ends.
   */
  async initialize(): Promise<void> {
    const sync = this.refresh("startup");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const wait = new Promise<"late">(
      (resolve) => (timer = setTimeout(() => resolve("late"), this.options.startupWaitMs ?? 3_000)),
    );
    const first = await Promise.race([sync, wait]);
    clearTimeout(timer);
    if (first === "late") this.options.logger.warn("git sync is taking long; serving the local copies until it ends.");
  }

  /** Background syncs every `intervalMs` (a tick while a sync runs is skipped). */
  start(): void {
    if (this.options.intervalMs <= 0 || this.timer !== undefined) return;
    const set = this.options.setInterval ?? ((fn, ms) => setInterval(fn, ms).unref());
    // A longer delay would fire at once, over and over (refresh.interval_minutes may come from a repository's config.yaml).
    this.timer = set(() => void this.refresh("timer"), timerDelay(this.options.intervalMs));
  }

  stop(): void {
    if (this.timer !== undefined)
      (this.options.clearInterval ?? ((h) => clearInterval(h as ReturnType<typeof setInterval>)))(this.timer);
    this.timer = undefined;
  }

  /**
   * Server shutdown: no more syncs, and every git still running is ended with its helpers (its process
   * group), unless the groups it is registered in are the caller's to kill (GitRunnerOptions.groups).
   */
  close(): void {
    this.stop();
    this.git.close();
  }

  /**
   * Sync every repository now. A call while one runs returns `{ success: false, busy: true }` at once.
   * `forced` (refresh_skills; `skillhub sync`, once per process): a repository a forced sync fetched less
   * than FORCED_FETCH_INTERVAL_MS ago is not fetched again; its report says when it was and when it may be.
   */
  refresh(reason: string, { forced = false }: { forced?: boolean } = {}): Promise<SyncOutcome> {
    if (this.running) {
      this.options.logger.debug(`git sync (${reason}) skipped: one is already running.`);
      return Promise.resolve({ success: false, busy: true, changed: false, repos: [], last_sync: this.lastSync });
    }
    this.running = this.run(reason, forced).finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(reason: string, forced: boolean): Promise<SyncOutcome> {
    if (!this.leftoversRemoved) {
      this.leftoversRemoved = true;
      await removeLeftoverClones(join(this.options.home, "repos"), { now: this.now, logger: this.options.logger });
    }
    // The copies on disk are checked before the first sync, so a slow network does not keep a verified
    // copy from the first catalog (nor an unverified one in it).
    if (!this.verifiedAtStart) {
      this.verifiedAtStart = true;
      await this.verifyCopies();
    }
    const pins = this.readPins();
    const targets = this.targets;
    const repos = await Promise.all(
      targets.map(async (t) => {
        const rested = forced ? this.rested(t, reason) : undefined;
        if (rested) return rested;
        const at = this.lockedBranch(t, pins);
        const unlocked = this.notLocked(at, pins.get(t.label));
        if (unlocked) return unsynced(at, unlocked);
        const started = this.now();
        const report = await this.syncOne(at, reason, this.want(at, pins));
        const adopted = this.lockedBranches.get(t.label);
        if (adopted && report.error?.code === "GIT_BRANCH_NOT_FOUND")
          report.error = {
            ...report.error,
            message: `skillhub.lock records ref ${adopted} for this repository, where the configuration follows ${namedRef(t)}: ${report.error.message}`,
          };
        // A failed fetch counts: a host that refuses (its rate limit) is not asked again at once either.
        if (forced && report.error?.code !== "GIT_LOCKED") this.forcedFetches.fetched(t.dir, started, report.error);
        return report;
      }),
    );
    // After every sync, whatever its result: a failed one leaves the copy as it was, which may have changed.
    const trustChanged = await this.verifyCopies();
    // Said once the copies are checked, so that a failure says whether the copy on disk is served.
    targets.forEach((target, i) => {
      const report = repos[i];
      if (report) report.served = existsSync(join(target.dir, ".git")) && this.served(target);
      // A rested repository's failure was said when its fetch failed.
      if (report?.error && report.error.code !== "GIT_LOCKED" && !report.rested)
        this.reportFailure(target, report.error, reason);
    });
    const success = repos.every((r) => r.success);
    if (success && repos.some((r) => !r.rested)) this.lastSync = new Date(this.now()).toISOString();
    const outcome: SyncOutcome = {
      success,
      busy: false,
      changed: repos.some((r) => r.changed) || trustChanged,
      repos,
      last_sync: this.lastSync,
    };
    for (const listener of this.listeners) {
      try {
        listener(outcome);
      } catch (error) {
        this.options.logger.error(`git sync listener failed: ${errorMessage(error)}`);
      }
    }
    return outcome;
  }

  private readPins(): ReadonlyMap<string, LockedRepo> {
    try {
      return this.options.pins?.() ?? new Map();
    } catch (error) {
      const why = `the lock's commits cannot be used (${errorMessage(error)})`;
      this.options.logger.warn(
        `git sync: ${why}; ${this.options.frozen ? "frozen, nothing is fetched" : "syncing to the refs"}.`,
      );
      return new Map(this.targets.map((t) => [t.label, { noLock: { why } }]));
    }
  }

  /**
   * Frozen, a followed branch is the one the lock records for it. Security: the branch a repository's own
   * config.yaml chooses is known only once its copy is there: on a fresh machine the default branch's tip was
   * fetched (files nobody reviewed, on disk) and the lock's commit, on the other branch, was never reached.
   */
  private lockedBranch(target: RepoTarget, pins: ReadonlyMap<string, LockedRepo>): RepoTarget {
    const pin = pins.get(target.label)?.pin;
    this.lockedBranches.delete(target.label);
    if (!this.options.frozen || !pin || target.ref !== undefined || pin.ref === target.branch) return target;
    if (!BRANCH_NAME.test(pin.ref)) return target;
    this.lockedBranches.set(target.label, pin.ref);
    this.options.logger.info(
      `repo ${target.label}: frozen, branch ${pin.ref} as skillhub.lock records it (the configuration says ${target.branch}; run \`${program()} sync\` to follow that, then lock it).`,
    );
    return { ...target, branch: pin.ref };
  }

  /**
   * Frozen, only what a lock records is fetched: a repository its lock records at no commit of its
   * configured URL and ref is not, nor one whose lock is missing or unreadable; this is why (the error of
   * its report). Security: it was fetched at its ref's tip, files nobody reviewed on disk, and a frozen
   * sync then only reported the difference.
   */
  private notLocked(target: RepoTarget, locked: LockedRepo | undefined): { code: string; message: string } | undefined {
    if (!this.options.frozen || !locked || locked.pin?.ref === refOf(target)) return undefined;
    const sync = `\`${this.options.lockingSync ?? `SKILLHUB_FROZEN=0 ${program()} sync`}\` fetches it and records it in the lock, for review before the lock is committed`;
    if (locked.noLock)
      return {
        code: "GIT_NOT_LOCKED",
        message: `nothing was fetched: a frozen sync fetches only what a lock records, and ${locked.noLock.why}${locked.noLock.missing ? `. ${capitalised(sync)}` : ""}`,
      };
    const records = locked.pin
      ? `records this repository at ref ${locked.pin.ref} (commit ${locked.pin.commit.slice(0, 12)}), not the configured ${namedRef(target)}`
      : locked.url
        ? `records this repository at URL ${locked.url}, not the configured ${target.spec.url}`
        : "does not record this repository";
    const choice =
      locked.pin || locked.url
        ? `If the lock's ${locked.pin ? "ref" : "URL"} is right, put it back in the configuration; if the configuration's is, ${sync}`
        : capitalised(sync);
    return {
      code: "GIT_NOT_LOCKED",
      message: `skillhub.lock ${records}, and a frozen sync fetches only what the lock records: nothing was fetched. ${choice}`,
    };
  }

  /** A pinned repository (or any, when frozen) stays at the lock's commit for its ref. */
  private want(target: RepoTarget, pins: ReadonlyMap<string, LockedRepo>): SyncWant {
    const updating = this.options.update?.(target.label) === true;
    const pin = updating ? undefined : pins.get(target.label)?.pin;
    const held = pin && pin.ref === refOf(target) && (this.options.frozen || target.ref !== undefined);
    // Security: with signed commits, a followed branch never goes back past what the lock says was reviewed.
    const after = pin && pin.ref === refOf(target) && !held && this.options.allowedSigners ? pin.commit : undefined;
    return {
      ...(held ? { commit: pin.commit } : {}),
      ...(after ? { after } : {}),
      ...(this.options.allowedSigners ? { allowedSigners: this.options.allowedSigners } : {}),
      ...(updating ? { rewrite: true as const } : {}),
    };
  }

  /** The report of a repository a forced sync fetched a moment ago (ForcedFetches), else undefined. */
  private rested(target: RepoTarget, reason: string): RepoReport | undefined {
    const resting = this.forcedFetches.resting(target.dir);
    if (!resting) return undefined;
    const { rest, error } = resting;
    this.options.logger.debug(
      `repo ${target.label}: not fetched (${reason}): fetched ${rest.fetched_seconds_ago} s ago, next in ${rest.next_fetch_in_seconds} s.`,
    );
    return { ...unsynced(target, error), rested: rest };
  }

  private async syncOne(target: RepoTarget, reason: string, want: SyncWant): Promise<RepoReport> {
    const base = { name: target.label, url: target.spec.url, dir: target.dir };
    const log = this.options.logger;
    const timeoutMs = this.options.timeoutMs ?? 120_000;
    let release: (() => void) | undefined;
    try {
      // Several SkillHub processes (one per MCP client) share the copies: one sync of a copy at a time.
      const lock = await lockCopy(target.dir, {
        waitMs: this.options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
        staleMs: Math.max(5 * 60_000, 2 * timeoutMs + 60_000),
      });
      release = lock.release;
      if (!lock.release) {
        const message = `another SkillHub${lock.heldBy ? ` (pid ${lock.heldBy})` : ""} is syncing ${target.dir}; skipped this time: call refresh_skills again in a moment.`;
        log.info(`repo ${target.label}: ${message}`);
        return unsynced(target, { code: "GIT_LOCKED", message });
      }
      const result = await syncRepo(
        target,
        {
          git: this.git,
          // Security: a repository a project's skillhub.yaml names is the project's choice, not the user's:
          // the user's token is never sent to it (git's own credential helpers and SSH keys still apply).
          auth: repoAuth(target.spec, this.options.token, target.project),
          now: this.now,
          progress: this.options.progress ?? ((line) => log.debug(line)),
          timeoutMs,
          ...(this.options.maxRepoBytes ? { maxRepoBytes: this.options.maxRepoBytes } : {}),
          signed: this.signed,
          notOlder: this.notOlder,
        },
        want,
      );
      for (const w of result.warnings) log.warn(`repo ${target.label}: ${w}`);
      const short = result.commit.slice(0, 7);
      if (result.cloned)
        log.info(
          `repo ${target.label}: cloned ${target.spec.url} at ${short} (${result.filesChanged} file${result.filesChanged === 1 ? "" : "s"}).`,
        );
      else if (result.changed)
        log.info(
          `repo ${target.label}: updated ${result.previous?.slice(0, 7)} → ${short}, ${result.filesChanged} file${result.filesChanged === 1 ? "" : "s"} changed.`,
        );
      else if (this.failing.has(target.label))
        log.info(`repo ${target.label}: reachable again, up to date at ${short}.`);
      else log.debug(`repo ${target.label}: up to date at ${short} (${reason}).`);
      this.failing.delete(target.label);
      return {
        ...base,
        success: true,
        changed: result.changed,
        commit_hash: result.commit,
        ...(result.refCommit ? { ref_commit: result.refCommit } : {}),
        files_changed: result.filesChanged,
        served: false,
        ...(result.cloned ? { cloned: true as const } : {}),
        warnings: result.warnings,
      };
    } catch (error) {
      const failure =
        error instanceof GitError ? error : new GitError("GIT_FAILED", errorMessage(error), { cause: error });
      recordFailure(target.dir, failure, this.now);
      const state = readState(target.dir);
      return {
        ...base,
        success: false,
        changed: false,
        commit_hash: state?.commit ?? null,
        files_changed: 0,
        served: false,
        error: { code: failure.code, message: failure.message },
        warnings: [],
      };
    } finally {
      release?.();
    }
  }

  /**
   * Warn, say what is served now (the local copy, unless trust.allowed_signers keeps it from being served,
   * or nothing), retry at the next interval. Repeats of the same failure go to DEBUG.
   */
  private reportFailure(target: RepoTarget, error: { code: string; message: string }, reason: string): void {
    const state = readState(target.dir);
    const copy = existsSync(join(target.dir, ".git"));
    const verdict = this.refusal(target);
    // A refused commit stays refused, whatever the retry: only a lock that moves (`sync --update`) helps.
    const refused = error.code === "GIT_COMMIT_NOT_IN_REF" || error.code === "GIT_HISTORY_REWRITTEN";
    // Not fetched, frozen, because the lock records none of it: its message says what to do instead.
    const unlocked = error.code === "GIT_NOT_LOCKED";
    const serving = !copy
      ? refused || unlocked
        ? `No copy is made, so this repository's skills are unavailable${refused ? " until the lock names a commit the branch or tag reaches" : ""}`
        : "There is no local copy yet, so this repository's skills are unavailable until a sync succeeds"
      : unlocked
        ? "A frozen server serves only the skills of its local copy that skillhub.lock records as they are"
        : this.served(target)
          ? `Serving the local copy${state ? ` from ${state.last_sync} (commit ${state.commit.slice(0, 7)})` : ""}`
          : `The local copy is not served${verdict ? ` (${verdict.why.replace(/\.$/, "")}): ${verdict.fix}` : ""}`;
    const retry = refused
      ? `\`${updateCommand(target)}\`, after that review, ${error.code === "GIT_HISTORY_REWRITTEN" ? "takes it" : "locks one"}`
      : (this.options.retry ?? `call refresh_skills, or run \`${program()} sync\``);
    // A command (no background sync) says how to try again; a server, when it will.
    const next =
      this.options.intervalMs > 0
        ? `the next try is in ${Math.round(this.options.intervalMs / 60_000)} min (${retry})`
        : retry;
    // A refused commit's message already says what the copy serves (git-repo.ts's keepVerified), or that
    // no copy was made.
    const said = error.code === "GIT_HISTORY_REWRITTEN" || (copy && error.code === "GIT_SIGNATURE_INVALID");
    const line = unlocked
      ? `repo ${target.label}: ${error.message}. ${serving}.`
      : `repo ${target.label}: ${error.message}${said ? "" : ` ${serving};`} ${said ? capitalised(next) : next}.`;
    const auth =
      error.code === "GIT_AUTH_FAILED" ||
      error.code === "GIT_BRANCH_NOT_FOUND" ||
      error.code === "GIT_NOT_FOUND" ||
      error.code === "GIT_REF_NOT_FOUND" ||
      error.code === "GIT_COMMIT_NOT_IN_REF" ||
      error.code === "GIT_SIGNATURE_INVALID" ||
      error.code === "GIT_HISTORY_REWRITTEN" ||
      error.code === "GIT_TOO_LARGE" ||
      unlocked;
    // A repository frozen mode keeps unfetched stays so until its lock or configuration changes: said once.
    const repeat = this.failing.has(target.label) && reason === "timer";
    this.options.logger[repeat && (!auth || unlocked) ? "debug" : auth ? "error" : "warn"](line);
    this.failing.add(target.label);
  }
}

/** The report of a repository this sync did not fetch (`error`: why, when that is a failure): its copy as it was. */
function unsynced(target: RepoTarget, error?: { code: string; message: string }): RepoReport {
  return {
    name: target.label,
    url: target.spec.url,
    dir: target.dir,
    success: !error,
    changed: false,
    commit_hash: readState(target.dir)?.commit ?? null,
    files_changed: 0,
    served: false,
    ...(error ? { error } : {}),
    warnings: [],
  };
}
