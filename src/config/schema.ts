import { z } from "zod";
import { LOG_LEVELS } from "../util/logger.ts";
import { once } from "../util/once.ts";
import { LockConfig, PluginsConfig, TrustConfig } from "./schema-lock.ts";
import { EmbeddingConfig, SearchConfig } from "./schema-search.ts";
import {
  assetBytes,
  branchName,
  commandList,
  fraction,
  gitRef,
  hostList,
  httpUrl,
  MAX_ASSET_LIMIT,
  nonNegativeInt,
  originList,
  outputBytes,
  positiveInt,
  publicUrl,
  stringList,
} from "./schema-values.ts";

/**
 * The whole configuration's schema. Keys are the config-file keys (snake_case, as in a skill
 * tree's config.yaml); environment variables and flags are mapped onto them in `settings.ts`; every default
 * is in `defaults.ts`. Each schema is a function that builds it on first use: zod builds schemas
 * slowly, and building all of them cost every start about 5 ms before `initialize`,
 * when a start usually changes two settings (the skills folder, the log level).
 */

export const TRANSPORTS = ["stdio", "http"] as const;
export { EmbeddingConfig, SearchConfig } from "./schema-search.ts";

export const SourcesConfig = once(() =>
  z.strictObject({
    /** Explicit skill folders (--skills-dir, then SKILLS_DIR, then the config file's), searched first. */
    dirs: stringList(),
    /** Skills folders a project's skillhub.yaml adds (inside the project), served as the project's own. */
    project_dirs: stringList(),
    /** Project root (--project / SKILLHUB_PROJECT_DIR). Unset: CLAUDE_PROJECT_DIR, MCP roots, cwd. */
    project: z.string().optional(),
    /** The skills root under the project root (--root); the sk profile reads `skills` when unset. */
    project_skills: z.string().min(1).optional(),
    /** Replace the default source list (project/global folders) with `dirs` only. Default false. */
    only_dirs: z.boolean(),
    /** Seconds between stat-based rescans; 0 = off. Default 30. */
    rescan_seconds: nonNegativeInt(),
    /** Recursive file watcher with a 500 ms debounce. Default true. */
    watch: z.boolean(),
    /** Watcher debounce in milliseconds. Default 500. */
    debounce_ms: nonNegativeInt(),
    /** Deepest folder level scanned below a source root. Default 8. */
    max_depth: positiveInt(),
    /**
     * Most folders scanned per source. Default 250,000: 50,000 skills with a few resource folders
     * each; reaching it is a warning in the log, `doctor` and `list` (dir-limit).
     */
    max_dirs: positiveInt(),
  }),
);

export const ServerConfig = once(() =>
  z.strictObject({
    transport: z.enum(TRANSPORTS),
    host: z.string().min(1),
    port: z.number().int().min(0).max(65_535),
    /** Streamable HTTP without sessions (JSON responses). Default false. */
    stateless: z.boolean(),
    /** One MCP prompt per served skill. Default true; --no-prompts turns them off. */
    prompts: z.boolean(),
    /** SKILLHUB_NO_PROMPTS=1: the environment's way to turn prompts off. Default false. */
    no_prompts: z.boolean(),
    /** Skills offered as prompts: the most useful N, or "all". Default 30. */
    prompt_skills: z.union([
      z.literal("all"),
      nonNegativeInt(),
      z.string().regex(/^\d+$/, 'expected a whole number or "all"'),
    ]),
    /** Bearer token for HTTP (SKILLHUB_HTTP_TOKEN); required on a non-loopback host. */
    token: z.string().optional(),
    /**
     * The operator's token for the web page (SKILLHUB_ADMIN_TOKEN): with it the page also shows what it keeps
     * from clients (their searches and requests that found nothing, feedback comments, the server's folders).
     * Not accepted by /mcp.
     */
    admin_token: z.string().optional(),
    /** Extra allowed Origin values for HTTP. */
    allowed_origins: originList(),
    /** Extra allowed Host values for HTTP. */
    allowed_hosts: hostList(),
    /** The URL clients reach the HTTP server at behind a reverse proxy (download links); unset = the request's origin. */
    public_url: publicUrl().optional(),
    /** Minutes before an idle HTTP session is closed. Default 30. */
    session_idle_minutes: positiveInt(),
    /** Tool profile (auto, skill, hub, tree, sk, all) or a comma list of tool names. Default auto. */
    tools: z.string().min(1),
    /** Characters allowed for the skill tool's catalog; unset = 2,000 for Claude Code, else 6,000. */
    catalog_budget: z.number().int().min(1200).optional(),
    /** Characters of one tool result a client shows whole; unset = 50,000 for Claude Code, else 25,000. */
    result_budget: z.number().int().min(4000).optional(),
    /** Seconds to wait for the client's roots/list answer. Default 2. */
    roots_timeout_seconds: z.number().min(0),
  }),
);

export const FiltersConfig = once(() =>
  z.strictObject({
    /** Only these skill names are usable (SKILLHUB_ENABLED_SKILLS). Empty = all. */
    enabled_skills: stringList(),
    /** Else only these categories (SKILLHUB_ENABLED_CATEGORIES, lower-cased). Empty = all. */
    enabled_categories: stringList(),
  }),
);

export const FilesConfig = once(() =>
  z.strictObject({
    /** read_skill_file returns at most this many bytes (MAX_FILE_BYTES). Default 65,536. */
    max_file_bytes: positiveInt(),
  }),
);

export const CommandsConfig = once(() =>
  z.strictObject({
    /** Register run_skill_command (--enable-commands / SKILLHUB_ENABLE_COMMANDS). Default false. */
    enabled: z.boolean(),
    /** ALLOWED_COMMANDS. */
    allowed: commandList(),
    /** EXEC_TIMEOUT_SECONDS. Default 60. */
    timeout_seconds: positiveInt(),
    /** EXEC_MAX_OUTPUT_BYTES. Default 65,536. */
    max_output_bytes: outputBytes(),
  }),
);

export const MatchingConfig = once(() =>
  z.strictObject({
    min_score: fraction(),
    max_results: positiveInt(),
    ambiguity_threshold: fraction(),
  }),
);

export const RefreshConfig = once(() =>
  z.strictObject({
    enabled: z.boolean(),
    interval_minutes: positiveInt(),
  }),
);

export const ScriptsConfig = once(() =>
  z.strictObject({
    enabled: z.boolean(),
    timeout_seconds: positiveInt(),
    max_output_bytes: outputBytes(),
    allowed_extensions: stringList(),
    /**
     * Run server scripts declared by the project's own skills (.agents, .claude, its skillhub.yaml's
     * folders and repositories), and commands in their folders? Off: a cloned repository could carry them.
     * --skills-dir, global and team-repo skills run.
     */
    allow_project: z.boolean(),
    runners: z.record(z.string(), z.string()),
  }),
);

export const AssetsConfig = once(() =>
  z.strictObject({
    /** Largest file get_asset serves, in bytes (at most 16 MiB). Default 1 MiB. */
    max_size_bytes: assetBytes(),
    /** get_skill inlines the content of declared text assets up to this size, in bytes (at most 16 MiB); 0 = never. Default 10,240. */
    inline_text_max_bytes: nonNegativeInt().max(MAX_ASSET_LIMIT),
  }),
);

export const AnalyticsConfig = once(() =>
  z.strictObject({
    enabled: z.boolean(),
    /** Where events are POSTed; empty = nowhere. */
    endpoint: z.union([z.literal(""), httpUrl()]),
    /** Local JSONL file; enables analytics without an endpoint. */
    file: z.string(),
    /** Seconds between POSTs (SKILLHUB_ANALYTICS_FLUSH_SECONDS). Default 30. */
    flush_seconds: z.number().min(0.05),
    /** Most events kept in memory before new ones are dropped (and counted). Default 10,000. */
    max_queue: positiveInt().max(1_000_000),
  }),
);

/**
 * One `repos:` entry written as a mapping: a repository with its own pin (`ref`: a tag or a commit),
 * branch and skills folder (`path`), as `skillhub add` writes them. `scope` says whose configuration
 * named it (the loaders set it): `project`, a project's skillhub.yaml (no GITHUB_TOKEN, server scripts
 * only with scripts.allow_project); `user`, the user's own config file, so that the user's own lock pins
 * it (lock/location.ts). Unset: SKILLS_REPO, pinned by the project's lock.
 */
export const RepoEntryConfig = once(() =>
  z.strictObject({
    url: z.string().min(1),
    ref: gitRef().optional(),
    branch: branchName().optional(),
    path: z.string().min(1).optional(),
    scope: z.enum(["project", "user"]).optional(),
  }),
);
export type RepoEntryConfig = z.infer<ReturnType<typeof RepoEntryConfig>>;

export const GitConfig = once(() =>
  z.strictObject({
    /** SKILLS_REPO (comma list) or `repos:`: URLs, or mappings with their own ref, branch and path. */
    repos: z.array(z.union([z.string(), RepoEntryConfig()])),
    branch: branchName(),
    token: z.string().optional(),
    // No `sparse_checkout`: copies are shallow, single-branch clones and only skills/ and config.yaml are read,
    // so a sparse checkout would save little disk and no network. The key is accepted and ignored with a
    // warning (UNSUPPORTED_KEYS in source-config.ts) so that such a config.yaml still loads.
    /** SKILLS_REF: pin every repository to a tag or a full commit hash instead of following `branch`. */
    ref: gitRef().optional(),
    /**
     * SKILLHUB_MAX_REPO_BYTES: most bytes one sync of a repository may bring onto disk, in what git
     * receives and, separately, in the files of the commit it checks out; 0 = no limit. Default 1 GiB.
     */
    max_repo_bytes: nonNegativeInt(),
  }),
);

/**
 * What get_skill returns as content. Kept in one block: other
 * settings are added beside it by other changes.
 */
export const ContentConfig = once(() =>
  z.strictObject({
    /**
     * get_skill truncates a node's aggregated content (its own rules, then its ancestors') over this many
     * estimated tokens (characters / 4), with a warning in the result; 0 = never. Default 8,000.
     */
    max_tokens: nonNegativeInt(),
  }),
);

/**
 * Parse options for the configuration: zod's default compiles a parser (new Function) per object
 * schema on its first parse, which pays off over thousands of parses; the configuration is parsed a
 * handful of times per process, and compiling cost 16-19 ms of every start.
 */
export const JITLESS = { jitless: true } as const;

/** Each top-level key's schema, built on first use. */
const KEYS = {
  /** SkillHub's own folder: caches, repos, analytics buffer (SKILLHUB_HOME). Default ~/.skillhub. */
  home: () => z.string().min(1),
  /** Persisted index location (DB_PATH). Default <home>/index. */
  cache_path: () => z.string().optional(),
  log_level: () => z.enum(LOG_LEVELS),
  /** Names of further environment variables to strip from child processes. */
  secrets: stringList,
  /** Credential-looking variables (`*_KEY`, `*_TOKEN`, …) scripts and commands may still receive. */
  pass_env: stringList,
  sources: SourcesConfig,
  server: ServerConfig,
  search: SearchConfig,
  embedding: EmbeddingConfig,
  filters: FiltersConfig,
  files: FilesConfig,
  commands: CommandsConfig,
  matching: MatchingConfig,
  refresh: RefreshConfig,
  scripts: ScriptsConfig,
  assets: AssetsConfig,
  analytics: AnalyticsConfig,
  git: GitConfig,
  lock: LockConfig,
  trust: TrustConfig,
  plugins: PluginsConfig,
  content: ContentConfig,
};

type Shape = { [K in keyof typeof KEYS]: ReturnType<(typeof KEYS)[K]> };

/**
 * The schema of the settings under `keys` (top-level keys); undefined when one is not a setting.
 * resolveConfig validates only the keys whose value is not their default (defaults.ts): this schema
 * ignores the others (z.object, not strict) and resolveConfig keeps their default values.
 */
export function configSchemaOf(keys: readonly string[]): z.ZodObject | undefined {
  if (keys.some((key) => !Object.hasOwn(KEYS, key))) return undefined;
  // In the schema's order, so that the first problem reported is the one a whole parse would report.
  const shape = Object.entries(KEYS).filter(([key]) => keys.includes(key));
  return z.object(Object.fromEntries(shape.map(([key, build]) => [key, build()])));
}

/** The whole configuration's schema (every key required: defaults.ts supplies what the user leaves out). */
export const configSchema = once(() =>
  z.strictObject(Object.fromEntries(Object.entries(KEYS).map(([key, build]) => [key, build()])) as Shape),
);

export type Config = z.infer<ReturnType<typeof configSchema>>;
