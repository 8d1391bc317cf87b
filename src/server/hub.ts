import { join } from "node:path";
import { type Analytics, createAnalytics } from "../analytics/setup.ts";
import type { TrackOutcome } from "../analytics/tracker.ts";
import type { Catalog } from "../catalog/catalog.ts";
import type { SkillFilter } from "../catalog/filters.ts";
import { Scanner } from "../catalog/scanner.ts";
import { CatalogStore } from "../catalog/store.ts";
import type { Config } from "../config/schema.ts";
import { type ExecHost, execHost } from "../exec/host.ts";
import { emptyBunConfig } from "../exec/runners.ts";
import { FrozenGuard } from "../lock/frozen.ts";
import { covers, type LockTarget, lockPath, lockTargets, ownRepoLabels, pinsRepo } from "../lock/location.ts";
import { pinsFrom } from "../lock/pins.ts";
import { forceRefresh, type RefreshOutcome } from "../refresh/force-refresh.ts";
import { GitSync } from "../refresh/git/git-sync.ts";
import type { LockedRepo } from "../refresh/git/git-sync-types.ts";
import { Refresher, walkLimitsOf } from "../refresh/refresher.ts";
import { copyRepos } from "../refresh/repo-targets.ts";
import { createSearch } from "../search/create-search.ts";
import type { SearchService } from "../search/service.ts";
import type { Skill } from "../skills/skill.ts";
import { claudePlugins, findPluginSources, pluginSourceInputs } from "../sources/plugin-sources.ts";
import { type ProjectRoot, resolveProjectRoot } from "../sources/project-root.ts";
import { hasSkillFolder } from "../sources/skill-folder.ts";
import { buildSourceList, type Source } from "../sources/source-list.ts";
import type { EventType, ToolDefinition, ToolDeps } from "../tools/definition.ts";
import { parseToolSelection, type ToolSelection } from "../tools/index.ts";
import { type ReportLimits, reportLimits } from "../tools/report-usage.ts";
import { skProjectRoot } from "../tools/support/sk-summary.ts";
import { USAGE_FILE, UsageStore } from "../usage/usage-store.ts";
import { removeStaleTemporaries } from "../util/atomic-write.ts";
import { errorMessage } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";
import { turns } from "../util/next-turn.ts";
import { MemoryRelease } from "../util/release-memory.ts";
import { logFirstCatalog, logNewDiagnostics } from "./catalog-log.ts";
import type { HubOptions } from "./hub-options.ts";
import { OfferedTools } from "./offered-tools.ts";
import { type ConfigReload, repositorySections } from "./repo-config.ts";

export type { HubOptions } from "./hub-options.ts";

/**
 * The running state shared by every connection: configuration, the current
 * catalog, and what keeps it fresh. Tools see it through `ToolDeps`.
 */
export class Hub implements ToolDeps {
  /** The configuration now: a repository's config.yaml applies once cloned and after a sync changes it (repo-config.ts). */
  get config(): Config {
    return this.current;
  }
  private current: Config;
  readonly logger: Logger;
  readonly store = new CatalogStore();
  readonly filter: SkillFilter;
  /**
   * Loads per skill, kept in <home>/usage.json across processes (usage-store.ts): what a stdio client's
   * lists are ordered by. HTTP sessions keep their own (createServer's `usage`).
   */
  readonly usage: UsageStore;
  /** report_usage's reports per client (report-usage.ts). */
  readonly feedbackLimits: ReportLimits;
  readonly selection: ToolSelection;
  readonly refresher: Refresher;
  /** The team repositories; undefined when none is configured. */
  readonly git?: GitSync;
  /** Made again when a repository's config.yaml changes where events go. */
  get analytics(): Analytics {
    return this.events;
  }
  private events: Analytics;
  private started = false;
  readonly search: SearchService;
  /** Told when big jobs end (scans, index builds, snapshot saves) and when clients call; a server enables it. */
  readonly memory: MemoryRelease;
  readonly acceptRoots: boolean;
  /** run_script / run_skill_command: the machine they run on. */
  readonly exec: ExecHost;
  /** Frozen mode: serve only what skillhub.lock records. */
  readonly frozen?: FrozenGuard;
  /**
   * A turn of the event loop for one call of a client (a tool call, a resource read), after the turn of the
   * call before it. Security: a batch of 100 costly calls (searches with long queries, reads of large files)
   * arrives in one request and would otherwise run back to back, holding every other client meanwhile.
   */
  readonly takeTurn = turns();
  private root: ProjectRoot;
  /** The project root known at start, whose skillhub.yaml named the project's folders (config sources.project_dirs). */
  private readonly startRoot: string | null;
  /** The source labels of the repositories of the user's own config file: the global lock pins them. */
  private readonly own: ReadonlySet<string>;
  private readonly scanner: Scanner;
  /** Names already answered by an immediate rescan for this catalog generation. */
  private probed = { generation: -1, names: new Set<string>() };
  private readonly options: HubOptions;
  private closed = false;
  private readonly offered: OfferedTools;
  private closing?: Promise<unknown>;
  /** The delayed start of background indexing; cleared by close() so a closed hub never starts it. */
  private indexTimer?: ReturnType<typeof setTimeout>;
  /** The catalog the store starts with, current until a scan's (or the last run's snapshot) replaces it. */
  private readonly unread: Catalog;

  constructor(options: HubOptions) {
    this.options = options;
    this.unread = this.store.catalog;
    this.memory = options.memory ?? new MemoryRelease();
    this.scanner = (
      options.scanner ??
      new Scanner().parseInWorker({
        failed: (error) =>
          this.logger.warn(`parsing skills in a worker failed (${errorMessage(error)}); parsed them in the server.`),
        parsed: (files, ms) => {
          this.memory.soon();
          this.logger.debug(`parsed ${files} SKILL.md files in a worker in ${Math.round(ms)} ms`);
        },
      })
    ).withNotes(options.notes ?? []);
    this.current = options.config;
    this.logger = options.logger;
    this.usage =
      options.usage ?? new UsageStore({ file: join(options.config.home, USAGE_FILE), logger: options.logger });
    this.feedbackLimits = reportLimits(options.now);
    this.acceptRoots = options.acceptRoots ?? true;
    this.exec = execHost({
      cwd: options.cwd,
      bunConfig: () => emptyBunConfig(options.config.home),
      logger: this.logger,
      ...options.exec,
    });
    this.selection = parseToolSelection(options.config.server.tools);
    this.offered = new OfferedTools(this.selection);
    this.root = this.computeRoot(undefined);
    this.startRoot = this.root.dir;
    this.own = ownRepoLabels(options.config);
    this.git = GitSync.fromConfig(options.config, this.logger, {
      repos: copyRepos(options.config),
      pins: () => this.repoPins(),
      lockFile: () => this.lockFile(),
      ...options.git,
      // Its gits are registered with the scripts: close() kills them all under one shutdown budget.
      runner: { ...(options.git?.runner ?? { env: options.env }), groups: this.exec.groups },
    });
    if (options.config.lock.frozen)
      this.frozen = new FrozenGuard({
        lockFile: () => this.lockFile(),
        lockFor: (skill) => this.lockTargetOf(skill).file,
        lockFiles: () => this.lockTargets().map((t) => t.file),
        logger: this.logger,
      });
    const frozen = this.frozen;
    this.filter = {
      skills: options.config.filters.enabled_skills,
      categories: options.config.filters.enabled_categories,
      ...(frozen ? { locked: (skill: Skill) => !frozen.refusal(skill, this.store.catalog) } : {}),
    };
    this.events = createAnalytics(options.config, options.env, this.logger, options.analytics);
    this.refresher = Refresher.fromConfig(options.config, {
      store: this.store,
      scanner: this.scanner,
      logger: this.logger,
      sources: () => this.sources(),
      sourceInputs: () => pluginSourceInputs(this.plugins()),
      watchFn: options.watchFn,
      now: options.now,
      collectNow: () => this.memory.collectNow(),
      // A lock changed on disk is noticed within one check, and announced (FrozenGuard.onChange).
      ...(frozen ? { afterCheck: () => void frozen.generation() } : {}),
    });
    this.search = createSearch({
      config: options.config,
      store: this.store,
      logger: this.logger,
      sourceDirs: () => this.sources().map((s) => s.dir),
      embedding: options.embedding,
      service: options.search,
      memory: this.memory,
    });
    // A sync that changed files rebuilds the catalog, which sends tools/list_changed; a repository's
    // config.yaml it brought or changed applies first, so the catalog's tools follow it (report_usage).
    this.git?.onSynced((outcome) => {
      if (!outcome.changed || this.closed) return;
      void this.reconfigure("git sync").then(() => this.refresher.rescan("git sync"));
    });
    if (options.announceDiagnostics ?? true) {
      this.store.onChange(({ previous, next }) => logNewDiagnostics(this.logger, previous, next));
      void this.refresher.ready.then(() => logFirstCatalog(this.logger, this.store.catalog));
    }
  }

  get catalog(): Catalog {
    return this.store.catalog;
  }

  get projectRoot(): ProjectRoot {
    return this.root;
  }

  get homeDir(): string {
    return this.options.homeDir;
  }

  get ready(): Promise<void> {
    return this.refresher.ready;
  }

  /**
   * No catalog yet: the first scan is under way and no snapshot of the last run stands in for it (a first
   * start). A listing given now says the skills are still being read; calls wait for the scan.
   */
  get catalogPending(): boolean {
    return this.store.catalog === this.unread;
  }

  /**
   * How long a listing waits for the first scan (ms) before it answers from the last run's snapshot, or, on
   * a first start (tools/list only), without the skills.
   */
  listingWaitMs(snapshot: boolean): number {
    if (snapshot) return this.options.snapshotListingWaitMs ?? SNAPSHOT_LISTING_WAIT_MS;
    return this.options.listingWaitMs ?? LISTING_WAIT_MS;
  }

  /** The sources in precedence order for the current project root. */
  sources(): Source[] {
    return buildSourceList({
      dirs: this.config.sources.dirs,
      projectDirs: this.config.sources.project_dirs,
      projectDirsRoot: this.startRoot,
      onlyDirs: this.config.sources.only_dirs,
      projectDir: this.root.dir,
      homeDir: this.options.homeDir,
      hubHome: this.config.home,
      projectSkills: skProjectRoot(
        this.config.sources.project_skills,
        this.tools().map((t) => t.name),
      ),
      repos: this.git?.sources(),
      plugins: findPluginSources(this.plugins()),
    });
  }

  /** Claude Code's plugins for the current project root, when they are served. */
  private plugins(): ReturnType<typeof claudePlugins> | undefined {
    const { enabled, dir } = this.config.plugins;
    return enabled ? claudePlugins(dir, this.options.homeDir, this.root.dir, this.logger) : undefined;
  }

  /** The main skillhub.lock for the current project root: the project's (lock/location.ts). */
  lockFile(): string {
    return lockPath(this.lockPlace());
  }

  /** Every lock file for the current project root, the one of lockFile() first. */
  lockTargets(): LockTarget[] {
    return lockTargets(this.lockPlace());
  }

  /**
   * The lock that covers `skill`: the project's for its own skills and those of the project's
   * repositories (skillhub.yaml, SKILLS_REPO), SkillHub's home for personal ones and those of the
   * repositories of the user's own config file.
   */
  lockTargetOf(skill: Pick<Skill, "location" | "root" | "source">): LockTarget {
    const targets = this.lockTargets();
    return targets.find((t) => covers(t, skill, this.root.dir, this.own)) ?? (targets[0] as LockTarget);
  }

  /** The lock that pins the repository labelled `label` and records its skills (lock/location.ts). */
  repoLockOf(label: string): LockTarget {
    const targets = this.lockTargets();
    return targets.find((t) => pinsRepo(t, label, this.own)) ?? (targets[0] as LockTarget);
  }

  /**
   * The repositories' pins, each from the lock that pins it (repoLockOf). Security: a URL the user's own
   * config file names is pinned by the user's lock alone, even where a project names it too (ownRepoLabels
   * counts every label of that URL as the user's), so a project's lock never chooses its commit.
   */
  private repoPins(): Map<string, LockedRepo> {
    const pinning = new Map<string, { url: string; file: string }>();
    for (const t of this.git?.targets ?? [])
      pinning.set(t.label, { url: t.spec.url, file: this.repoLockOf(t.label).file });
    const then = this.config.lock.frozen
      ? "frozen, nothing of its repositories is fetched"
      : "its repositories follow their refs";
    return pinsFrom(pinning, (file, error) =>
      this.logger.warn(`git sync: the commits ${file} records cannot be used (${error.message}); ${then}.`),
    );
  }

  private lockPlace() {
    return { file: this.config.lock.file, projectDir: this.root.dir, home: this.config.home, cwd: this.options.cwd };
  }

  /** Start background scanning and indexing (servers). */
  start(): Promise<void> {
    this.started = true;
    removeStaleTemporaries(this.config.cache_path ?? join(this.config.home, "index"), this.logger);
    this.analytics.publisher?.start();
    // A reachable repository is synced before the first catalog, but a slow one is waited for
    // 3 s at most (GitSync.initialize): then the local folders and any existing copy are served, and the
    // sync's end rescans (onSynced above), which sends tools/list_changed.
    const scanned = this.startGit().then(() => (this.closed ? undefined : this.refresher.start()));
    // Index in the background only when search is offered: a skill-only server never pays for it.
    // It starts a moment after the first catalog, so that a client's first tools/list is not kept
    // waiting behind it; a search that comes sooner starts it at once.
    if (this.tools().some((t) => t.name === "search_skills")) {
      void this.refresher.ready.then(() => {
        if (this.closed) return;
        this.indexTimer = setTimeout(() => void this.search.start(Promise.resolve()), INDEX_START_DELAY_MS);
        this.indexTimer.unref?.();
      });
    }
    return scanned;
  }

  /** Scan once, synchronously, and install the result (CLI commands). */
  scanNow(): Catalog {
    const catalog = this.scanner.scan(this.sources(), walkLimitsOf(this.config));
    this.store.swap(catalog);
    this.refresher.installed();
    return catalog;
  }

  /** The client reported its roots: the first file:// one may become the project root. */
  setClientRoots(uris: readonly string[]): void {
    if (!this.acceptRoots) return;
    const next = this.computeRoot(uris);
    if (next.dir === this.root.dir) return;
    this.logger.info(`project root is now ${next.dir ?? "(none)"} (${next.how})`);
    const lock = this.lockFile();
    this.root = next;
    // Another project's lock pins other copies (repo-targets.ts): they are synced to it, and its end rescans.
    if (this.git && this.lockFile() !== lock && !this.closed) void this.git.refresh("project root changed");
    void this.refresher.rescan("project root changed");
  }

  async findSkill(name: string): Promise<Skill | undefined> {
    await this.ready;
    const found = this.store.catalog.get(name);
    if (found) return found;
    // Created a moment ago and not yet seen by a watcher? A folder of that name settles it with one
    // immediate rescan (once per name and catalog, so a broken folder cannot cause a scan per call);
    // otherwise one rate-limited rescan.
    const catalog = this.store.catalog;
    if (this.probed.generation !== catalog.generation)
      this.probed = { generation: catalog.generation, names: new Set() };
    const key = name.trim().toLowerCase();
    const probable =
      !this.probed.names.has(key) && this.sources().some((source) => hasSkillFolder(source.dir, name.trim()));
    if (probable) this.probed.names.add(key);
    if (await this.refresher.refreshForMiss(probable ? 0 : 1000)) return this.store.catalog.get(name);
    return undefined;
  }

  knownEntries(dir: string): ReturnType<Scanner["knownEntries"]> {
    return this.scanner.knownEntries(dir);
  }

  async ensureFresh(maxAgeMs: number): Promise<void> {
    await this.ready;
    await this.refresher.refreshForMiss(maxAgeMs);
  }

  async checkFresh(): Promise<void> {
    await this.ready;
    await this.refresher.checkNow();
  }

  /** Analytics: queued in memory, sent by the publisher; a no-op when analytics is off. */
  track(type: EventType, data: Record<string, unknown>, from: string | undefined): TrackOutcome {
    return this.analytics.tracker.track(type, data, from);
  }

  /** `refresh_skills` / `skillhub sync`: pull the repositories (if any), then rescan every folder. */
  refreshSkills(): Promise<RefreshOutcome> {
    return forceRefresh({ git: this.git, refresher: this.refresher, store: this.store });
  }

  /** The tools offered now (OfferedTools: once per catalog generation). */
  tools(): ToolDefinition[] {
    return this.offered.get(this.store.catalog, this.config);
  }

  /** Stop everything the hub runs; a second call does nothing. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    // No git command starts from now on; those running are killed with the scripts, below.
    this.git?.close();
    this.closing ??= this.analytics.publisher?.close();
    this.refresher.stop();
    this.usage.save();
    clearTimeout(this.indexTimer);
    this.search.close();
    this.memory.disable();
    // A script, or a clone or fetch, still running when the server closes is ended with its whole process
    // group (a git's helpers too: git-remote-https, ssh). One registry holds both, so one killAll searches
    // for what left their groups, within one budget (exec/process-group.ts).
    this.exec.groups.killAll();
  }

  /** close(), then wait for the final analytics flush (stdio and HTTP shutdown). */
  async shutdown(): Promise<void> {
    this.close();
    await this.closing;
  }

  private async startGit(): Promise<void> {
    if (!this.git) return;
    await this.git.initialize();
    if (!this.closed) this.git.start();
  }

  /**
   * Read the configuration again (HubOptions.reloadConfig) and apply what the repositories' config.yaml
   * files set: a new member's first session runs with the team's analytics, report_usage and script
   * limits as soon as the first clone is there, not from the second start. A file that cannot be read
   * or is invalid leaves the configuration as it was, with a warning.
   */
  private async reconfigure(why: string): Promise<void> {
    const reload = this.options.reloadConfig;
    if (!reload) return;
    let next: Awaited<ReturnType<ConfigReload>>;
    try {
      next = await reload((copy) => this.git?.servesCopy(copy) ?? false);
    } catch (error) {
      this.logger.warn(`configuration not read again after the ${why}: ${errorMessage(error)}`);
      return;
    }
    const { config, changed } = repositorySections(this.current, next.config);
    if (changed.length === 0) return;
    for (const warning of next.warnings) this.logger.warn(`config: ${warning}`);
    this.current = config;
    this.logger.info(`configuration: ${changed.join(", ")} from the repositories' config.yaml applied (${why}).`);
    if (changed.includes("analytics")) {
      // Events queued so far go where they were headed; new ones go where the repository says.
      void this.events.publisher?.close();
      this.events = createAnalytics(config, this.options.env, this.logger, this.options.analytics);
      if (this.started && !this.closed) this.events.publisher?.start();
    }
  }

  private computeRoot(roots: readonly string[] | undefined): ProjectRoot {
    return resolveProjectRoot({
      configured: this.config.sources.project,
      env: this.options.env,
      roots,
      cwd: this.options.cwd,
      homeDir: this.options.homeDir,
    });
  }
}

/** Milliseconds between the first catalog and the start of background indexing. */
const INDEX_START_DELAY_MS = 500;

/**
 * Milliseconds a first start's tools/list waits for the first scan: up to a thousand or two skills it ends
 * sooner and the first listing names them; a larger collection is listed once it has (list_changed).
 */
const LISTING_WAIT_MS = 800;

/**
 * Milliseconds a listing waits for the first scan when the last run's snapshot of a small collection could
 * answer it (catalog-snapshot.ts): such a scan ends well within it unless a repository sync holds it.
 */
const SNAPSHOT_LISTING_WAIT_MS = 200;
