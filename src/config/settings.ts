/**
 * Where each configuration key can come from: environment variables and
 * command-line flags, with the type their text is converted to.
 */

export type ValueKind = "string" | "int" | "number" | "bool" | "list" | "pathlist" | "loglevel";

export interface Setting {
  /** Dotted config key, e.g. "search.limit". */
  key: string;
  kind: ValueKind;
  /** Further keys set to a fixed value when this one is given (ANALYTICS_ENDPOINT enables analytics). */
  implies?: Record<string, unknown>;
  /** Never echo the value in an error message. */
  secret?: boolean;
}

/** Environment variables, in the order they are applied. Every variable named in the seeds is here. */
export const ENV_SETTINGS: Record<string, Setting> = {
  SKILLHUB_HOME: { key: "home", kind: "string" },
  DB_PATH: { key: "cache_path", kind: "string" },
  LOG_LEVEL: { key: "log_level", kind: "loglevel" },
  SKILLHUB_SECRETS: { key: "secrets", kind: "list" },
  SKILLS_DIR: { key: "sources.dirs", kind: "pathlist" },
  SKILLHUB_PROJECT_DIR: { key: "sources.project", kind: "string" },
  SKILLHUB_RESCAN_SECONDS: { key: "sources.rescan_seconds", kind: "int" },
  SKILLHUB_WATCH: { key: "sources.watch", kind: "bool" },
  SKILLHUB_TRANSPORT: { key: "server.transport", kind: "string" },
  SKILLHUB_HOST: { key: "server.host", kind: "string" },
  SKILLHUB_PORT: { key: "server.port", kind: "int" },
  SKILLHUB_STATELESS: { key: "server.stateless", kind: "bool" },
  SKILLHUB_NO_PROMPTS: { key: "server.no_prompts", kind: "bool" },
  SKILLHUB_HTTP_TOKEN: { key: "server.token", kind: "string", secret: true },
  SKILLHUB_ALLOWED_ORIGINS: { key: "server.allowed_origins", kind: "list" },
  SKILLHUB_ALLOWED_HOSTS: { key: "server.allowed_hosts", kind: "list" },
  SKILLHUB_SESSION_IDLE_MINUTES: { key: "server.session_idle_minutes", kind: "int" },
  SKILLHUB_TOOLS: { key: "server.tools", kind: "string" },
  SKILLHUB_CATALOG_BUDGET: { key: "server.catalog_budget", kind: "int" },
  SEARCH_LIMIT: { key: "search.limit", kind: "int" },
  SEARCH_THRESHOLD: { key: "search.threshold", kind: "number" },
  SEARCH_MODE: { key: "search.mode", kind: "string" },
  SKILLHUB_REINDEX: { key: "search.reindex", kind: "bool" },
  SKILLHUB_SKIP_AUTO_REINDEX: { key: "search.skip_auto_reindex", kind: "bool" },
  EMBEDDING_PROVIDER: { key: "embedding.provider", kind: "string" },
  EMBEDDING_MODEL: { key: "embedding.model", kind: "string" },
  EMBEDDING_BASE_URL: { key: "embedding.base_url", kind: "string" },
  EMBEDDING_API_KEY: { key: "embedding.api_key", kind: "string", secret: true },
  OPENAI_API_KEY: { key: "embedding.openai_api_key", kind: "string", secret: true },
  OPENAI_BASE_URL: { key: "embedding.openai_base_url", kind: "string" },
  GEMINI_API_KEY: { key: "embedding.gemini_api_key", kind: "string", secret: true },
  EMBEDDING_TIMEOUT_SECONDS: { key: "embedding.timeout_seconds", kind: "number" },
  EMBEDDING_BATCH_SIZE: { key: "embedding.batch_size", kind: "int" },
  SKILLHUB_ENABLED_SKILLS: { key: "filters.enabled_skills", kind: "list" },
  SKILLHUB_ENABLED_CATEGORIES: { key: "filters.enabled_categories", kind: "list" },
  MAX_FILE_BYTES: { key: "files.max_file_bytes", kind: "int" },
  SKILLHUB_ENABLE_COMMANDS: { key: "commands.enabled", kind: "bool" },
  ALLOWED_COMMANDS: { key: "commands.allowed", kind: "list" },
  EXEC_TIMEOUT_SECONDS: { key: "commands.timeout_seconds", kind: "int" },
  EXEC_MAX_OUTPUT_BYTES: { key: "commands.max_output_bytes", kind: "int" },
  SKILLS_REPO: { key: "git.repos", kind: "list" },
  SKILLS_BRANCH: { key: "git.branch", kind: "string" },
  GITHUB_TOKEN: { key: "git.token", kind: "string", secret: true },
  ANALYTICS_ENDPOINT: { key: "analytics.endpoint", kind: "string", implies: { "analytics.enabled": true } },
  SKILLHUB_ANALYTICS_FILE: { key: "analytics.file", kind: "string", implies: { "analytics.enabled": true } },
  SKILLHUB_ANALYTICS_FLUSH_SECONDS: { key: "analytics.flush_seconds", kind: "number" },
  REFRESH_INTERVAL_MINUTES: { key: "refresh.interval_minutes", kind: "int", implies: { "refresh.enabled": true } },
};

/** Config keys whose values are secrets, wherever they come from (a config file too): never echoed. */
export const SECRET_KEYS: ReadonlySet<string> = new Set(
  Object.values(ENV_SETTINGS)
    .filter((s) => s.secret)
    .map((s) => s.key),
);

/** Flags shared by every command (parsed by `args.ts`), mapped to config keys. */
export const FLAG_SETTINGS: Record<string, Setting> = {
  "skills-dir": { key: "sources.dirs", kind: "pathlist" },
  project: { key: "sources.project", kind: "string" },
  "no-watch": { key: "sources.watch", kind: "bool" },
  "no-prompts": { key: "server.prompts", kind: "bool" },
  transport: { key: "server.transport", kind: "string" },
  host: { key: "server.host", kind: "string" },
  port: { key: "server.port", kind: "int" },
  stateless: { key: "server.stateless", kind: "bool" },
  tools: { key: "server.tools", kind: "string" },
  reindex: { key: "search.reindex", kind: "bool" },
  "skip-auto-reindex": { key: "search.skip_auto_reindex", kind: "bool" },
  "enable-commands": { key: "commands.enabled", kind: "bool" },
  "log-level": { key: "log_level", kind: "loglevel" },
  home: { key: "home", kind: "string" },
};
