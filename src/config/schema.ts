import { z } from "zod";
import { LOG_LEVELS } from "../util/logger.ts";

/**
 * The whole configuration: one schema, one set of defaults. Keys are the
 * config-file keys (snake_case, as seed 003's config.yaml); environment
 * variables and flags are mapped onto them in `sources.ts`.
 */

const positiveInt = z.number().int().min(1);
const nonNegativeInt = z.number().int().min(0);
const fraction = z.number().min(0).max(1);
const stringList = z.array(z.string());
const httpUrl = z.string().regex(/^https?:\/\/[^\s/]+/i, "expected an http:// or https:// URL");

export const TRANSPORTS = ["stdio", "http"] as const;
export const SEARCH_MODES = ["fts", "vector", "hybrid"] as const;
export const EMBEDDING_PROVIDERS = ["none", "openai", "gemini", "openai-compatible"] as const;

export const SourcesConfig = z
  .object({
    /** Explicit skill folders (--skills-dir, then SKILLS_DIR), searched first. */
    dirs: stringList.default([]),
    /** Project root (--project / SKILLHUB_PROJECT_DIR). Unset: CLAUDE_PROJECT_DIR, MCP roots, cwd. */
    project: z.string().optional(),
    /** Seed 001's skills root under the project root (--root); the sk profile reads `skills` when unset. */
    project_skills: z.string().min(1).optional(),
    /** Replace the default source list (project/global folders) with `dirs` only. Default false. */
    only_dirs: z.boolean().default(false),
    /** Seconds between stat-based rescans; 0 = off. Default 30. */
    rescan_seconds: nonNegativeInt.default(30),
    /** Recursive file watcher with a 500 ms debounce. Default true. */
    watch: z.boolean().default(true),
    /** Watcher debounce in milliseconds. Default 500. */
    debounce_ms: nonNegativeInt.default(500),
    /** Deepest folder level scanned below a source root. Default 8. */
    max_depth: positiveInt.default(8),
    /**
     * Most folders scanned per source. Default 250,000: 50,000 skills with a few resource folders
     * each; reaching it is a warning in the log, `doctor` and `list` (dir-limit).
     */
    max_dirs: positiveInt.default(250_000),
  })
  .strict();

export const ServerConfig = z
  .object({
    transport: z.enum(TRANSPORTS).default("stdio"),
    host: z.string().min(1).default("127.0.0.1"),
    port: z.number().int().min(0).max(65_535).default(8000),
    /** Streamable HTTP without sessions (JSON responses). Default false. */
    stateless: z.boolean().default(false),
    /** One MCP prompt per served skill. Default true; --no-prompts turns them off. */
    prompts: z.boolean().default(true),
    /** SKILLHUB_NO_PROMPTS=1: the environment's way to turn prompts off. Default false. */
    no_prompts: z.boolean().default(false),
    /** Bearer token for HTTP (SKILLHUB_HTTP_TOKEN); required on a non-loopback host. */
    token: z.string().optional(),
    /** Extra allowed Origin values for HTTP. */
    allowed_origins: stringList.default([]),
    /** Extra allowed Host values for HTTP. */
    allowed_hosts: stringList.default([]),
    /** Minutes before an idle HTTP session is closed. Default 30. */
    session_idle_minutes: positiveInt.default(30),
    /** Tool profile (auto, skill, hub, tree, sk, all) or a comma list of tool names. Default auto. */
    tools: z.string().min(1).default("auto"),
    /** Characters allowed for the skill tool's catalog; unset = 2,000 for Claude Code, else 6,000. */
    catalog_budget: z.number().int().min(1200).optional(),
    /** Seconds to wait for the client's roots/list answer. Default 2. */
    roots_timeout_seconds: z.number().min(0).default(2),
  })
  .strict();

export const SearchConfig = z
  .object({
    /** Default number of results (SEARCH_LIMIT). Default 10. */
    limit: positiveInt.max(100).default(10),
    /** Keep hits with score/top >= threshold when more than 5 (SEARCH_THRESHOLD). Default 0.2. */
    threshold: fraction.default(0.2),
    /** fts, vector or hybrid (SEARCH_MODE). Unset: hybrid with embeddings, else fts. */
    mode: z.enum(SEARCH_MODES).optional(),
    /** Force an index rebuild at start-up (--reindex). */
    reindex: z.boolean().default(false),
    /** Use the persisted index as it is (--skip-auto-reindex). */
    skip_auto_reindex: z.boolean().default(false),
  })
  .strict();

/**
 * Optional embeddings (DESIGN §7.3). A provider other than `none` sends skill
 * metadata and queries to an embedding API; the refinement below stops start-up
 * (exit 2) when the chosen provider lacks its key or base URL. Messages never
 * contain a key: they name the variables to set.
 */
export const EmbeddingConfig = z
  .object({
    /** none (default: nothing leaves the machine), openai, gemini or openai-compatible (EMBEDDING_PROVIDER). */
    provider: z.enum(EMBEDDING_PROVIDERS).default("none"),
    /** EMBEDDING_MODEL. Unset: text-embedding-3-small (openai), gemini-embedding-001 (gemini), the server's default (openai-compatible). */
    model: z.string().min(1).optional(),
    /** EMBEDDING_BASE_URL: the API's base URL; required for openai-compatible, overrides the others' default. */
    base_url: httpUrl.optional(),
    /** EMBEDDING_API_KEY: a key for any provider; wins over the provider's own variable. */
    api_key: z.string().min(1).optional(),
    /** OPENAI_API_KEY: the openai provider's key. */
    openai_api_key: z.string().min(1).optional(),
    /** GEMINI_API_KEY: the gemini provider's key. */
    gemini_api_key: z.string().min(1).optional(),
    /** OPENAI_BASE_URL: the openai provider's base URL. Default https://api.openai.com/v1. */
    openai_base_url: httpUrl.optional(),
    /** Seconds one embedding request may take (EMBEDDING_TIMEOUT_SECONDS). Default 10. */
    timeout_seconds: z.number().min(0.1).default(10),
    /** Texts sent per request (EMBEDDING_BATCH_SIZE). Default 64. */
    batch_size: positiveInt.max(2048).default(64),
  })
  .strict()
  .superRefine((e, ctx) => {
    const missing = (message: string) => ctx.addIssue({ code: "custom", path: ["provider"], message });
    if (e.provider === "openai" && !e.api_key && !e.openai_api_key) {
      missing(
        "the openai provider needs an API key: set OPENAI_API_KEY (or EMBEDDING_API_KEY), or EMBEDDING_PROVIDER=none to keep search local",
      );
    }
    if (e.provider === "gemini" && !e.api_key && !e.gemini_api_key) {
      missing(
        "the gemini provider needs an API key: set GEMINI_API_KEY (or EMBEDDING_API_KEY), or EMBEDDING_PROVIDER=none to keep search local",
      );
    }
    if (e.provider === "openai-compatible" && !e.base_url) {
      missing(
        "the openai-compatible provider needs the server's URL: set EMBEDDING_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama)",
      );
    }
  });

export const FiltersConfig = z
  .object({
    /** Only these skill names are usable (SKILLHUB_ENABLED_SKILLS). Empty = all. */
    enabled_skills: stringList.default([]),
    /** Else only these categories (SKILLHUB_ENABLED_CATEGORIES, lower-cased). Empty = all. */
    enabled_categories: stringList.default([]),
  })
  .strict();

export const FilesConfig = z
  .object({
    /** read_skill_file returns at most this many bytes (MAX_FILE_BYTES). Default 65,536. */
    max_file_bytes: positiveInt.default(65_536),
  })
  .strict();

export const CommandsConfig = z
  .object({
    /** Register run_skill_command (--enable-commands / SKILLHUB_ENABLE_COMMANDS). Default false. */
    enabled: z.boolean().default(false),
    /** ALLOWED_COMMANDS. */
    allowed: stringList.default(["python", "uv", "node", "cat", "ls", "grep"]),
    /** EXEC_TIMEOUT_SECONDS. Default 60. */
    timeout_seconds: positiveInt.default(60),
    /** EXEC_MAX_OUTPUT_BYTES. Default 65,536. */
    max_output_bytes: positiveInt.default(65_536),
  })
  .strict();

export const MatchingConfig = z
  .object({
    min_score: fraction.default(0.2),
    max_results: positiveInt.default(3),
    ambiguity_threshold: fraction.default(0.1),
  })
  .strict();

export const RefreshConfig = z
  .object({
    enabled: z.boolean().default(true),
    interval_minutes: positiveInt.default(15),
  })
  .strict();

export const ScriptsConfig = z
  .object({
    enabled: z.boolean().default(true),
    timeout_seconds: positiveInt.default(60),
    max_output_bytes: positiveInt.default(1_048_576),
    allowed_extensions: stringList.default([".sh", ".ts", ".js", ".py"]),
    /**
     * Run server scripts declared by skills in the project's own folders (.agents, .claude)?
     * Off: a cloned repository could carry them. --skills-dir, global and team-repo skills run.
     */
    allow_project: z.boolean().default(false),
    runners: z.record(z.string(), z.string()).default({
      ".sh": "bash",
      ".ts": "skillhub",
      ".js": "skillhub",
      ".py": "python3",
    }),
  })
  .strict();

export const AssetsConfig = z
  .object({
    max_size_bytes: positiveInt.default(1_048_576),
    /** get_skill inlines the content of declared text assets up to this size, in bytes; 0 = never. Default 10,240. */
    inline_text_max_bytes: nonNegativeInt.default(10_240),
  })
  .strict();

export const AnalyticsConfig = z
  .object({
    enabled: z.boolean().default(false),
    endpoint: z.string().default(""),
    /** Local JSONL file; enables analytics without an endpoint. */
    file: z.string().default(""),
    /** Seconds between POSTs (SKILLHUB_ANALYTICS_FLUSH_SECONDS). Default 30. */
    flush_seconds: z.number().min(0.05).default(30),
    /** Most events kept in memory before new ones are dropped (and counted). Default 10,000. */
    max_queue: positiveInt.default(10_000),
  })
  .strict();

export const GitConfig = z
  .object({
    /** SKILLS_REPO (comma list) or `repos:`. */
    repos: stringList.default([]),
    branch: z.string().min(1).default("main"),
    token: z.string().optional(),
    // No `sparse_checkout`: copies are shallow, single-branch clones and only skills/ and config.yaml are read,
    // so a sparse checkout would save little disk and no network. The key is accepted and ignored with a
    // warning (UNSUPPORTED_KEYS in source-config.ts) so that seed 002's config.yaml still loads.
    /** SKILLS_REF: pin every repository to a tag or a commit (7–64 hex) instead of following `branch`. */
    ref: z.string().min(1).optional(),
  })
  .strict();

// --- Lockfile, pinning, trust and plugin skills (issue 17; docs/lockfile.md) ---

export const LockConfig = z
  .object({
    /** SKILLHUB_LOCK: the lockfile. Unset: <project>/skillhub.lock, else <home>/skillhub.lock. */
    file: z.string().min(1).optional(),
    /** --frozen / SKILLHUB_FROZEN: serve only skills whose digests match the lock; sync keeps every locked commit. */
    frozen: z.boolean().default(false),
  })
  .strict();

export const TrustConfig = z
  .object({
    /** SKILLHUB_ALLOWED_SIGNERS: an SSH allowed-signers file; sync then accepts only commits signed by a listed key. */
    allowed_signers: z.string().min(1).optional(),
  })
  .strict();

export const PluginsConfig = z
  .object({
    /** SKILLHUB_PLUGINS: serve the skills of installed Claude Code plugins (lowest priority). Default true. */
    enabled: z.boolean().default(true),
    /** Claude Code's plugins folder. Default ~/.claude/plugins. */
    dir: z.string().min(1).optional(),
  })
  .strict();

/**
 * What get_skill returns as content (seed 002 §6). Kept in one block: other
 * settings are added beside it by other changes.
 */
export const ContentConfig = z
  .object({
    /**
     * get_skill truncates a node's aggregated content (its own rules, then its ancestors') over this many
     * estimated tokens (characters / 4), with a warning in the result; 0 = never. Default 8,000.
     */
    max_tokens: nonNegativeInt.default(8_000),
  })
  .strict();

/**
 * Parse options for the configuration: zod's default compiles a parser (new Function) per object
 * schema on its first parse, which pays off over thousands of parses; the configuration is parsed a
 * handful of times per process, and compiling cost 16-19 ms of every start (issue 16).
 */
export const JITLESS = { jitless: true } as const;

export const Config = z
  .object({
    /** SkillHub's own folder: caches, repos, analytics buffer (SKILLHUB_HOME). Default ~/.skillhub. */
    home: z.string().min(1),
    /** Persisted index location (DB_PATH). Default <home>/index. */
    cache_path: z.string().optional(),
    log_level: z.enum(LOG_LEVELS).default("INFO"),
    /** Names of further environment variables to strip from child processes. */
    secrets: stringList.default([]),
    sources: SourcesConfig.default(SourcesConfig.parse({}, JITLESS)),
    server: ServerConfig.default(ServerConfig.parse({}, JITLESS)),
    search: SearchConfig.default(SearchConfig.parse({}, JITLESS)),
    embedding: EmbeddingConfig.default(EmbeddingConfig.parse({}, JITLESS)),
    filters: FiltersConfig.default(FiltersConfig.parse({}, JITLESS)),
    files: FilesConfig.default(FilesConfig.parse({}, JITLESS)),
    commands: CommandsConfig.default(CommandsConfig.parse({}, JITLESS)),
    matching: MatchingConfig.default(MatchingConfig.parse({}, JITLESS)),
    refresh: RefreshConfig.default(RefreshConfig.parse({}, JITLESS)),
    scripts: ScriptsConfig.default(ScriptsConfig.parse({}, JITLESS)),
    assets: AssetsConfig.default(AssetsConfig.parse({}, JITLESS)),
    analytics: AnalyticsConfig.default(AnalyticsConfig.parse({}, JITLESS)),
    git: GitConfig.default(GitConfig.parse({}, JITLESS)),
    lock: LockConfig.default(LockConfig.parse({}, JITLESS)),
    trust: TrustConfig.default(TrustConfig.parse({}, JITLESS)),
    plugins: PluginsConfig.default(PluginsConfig.parse({}, JITLESS)),
    content: ContentConfig.default(ContentConfig.parse({}, JITLESS)),
  })
  .strict();

export type Config = z.infer<typeof Config>;
