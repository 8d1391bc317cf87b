/**
 * Where each configuration key can come from: environment variables and
 * command-line flags, with the type their text is converted to, and what each
 * key means. docs/configuration.md's table is generated from this file and the
 * schema's defaults (scripts/config-doc.ts, `make readme`); a test fails when
 * the two drift, so a new setting needs its `description` here.
 */

export type ValueKind = "string" | "int" | "number" | "bool" | "list" | "pathlist" | "loglevel";

/** What the documentation says about a key. */
export interface SettingDoc {
  /** What the key does, for a user: one or two sentences, Markdown allowed. */
  description: string;
  /** The default as the docs show it, when the schema has none or computes it (e.g. "2,000 for Claude Code, else 6,000"). */
  default?: string;
}

export interface Setting extends SettingDoc {
  /** Dotted config key, e.g. "search.limit". */
  key: string;
  kind: ValueKind;
  /** Further keys set to a fixed value when this one is given (ANALYTICS_ENDPOINT enables analytics). */
  implies?: Record<string, unknown>;
  /** Never echo the value in an error message. */
  secret?: boolean;
  /**
   * A URL only SkillHub uses: never passed to scripts and commands (exec/env.ts), since a URL can carry a
   * credential no name says is one (`?api_key=…`, a webhook's token in its path).
   */
  url?: boolean;
}

/** Environment variables, in the order they are applied. */
export const ENV_SETTINGS: Record<string, Setting> = {
  SKILLHUB_HOME: {
    key: "home",
    kind: "string",
    default: "`~/.skillhub`",
    description: "SkillHub's own folder: `config.yaml`, the search index, synced repositories, `skills/`.",
  },
  DB_PATH: {
    key: "cache_path",
    kind: "string",
    default: "`<home>/index`",
    description: "Where the search index and the embedding vectors are kept.",
  },
  LOG_LEVEL: {
    key: "log_level",
    kind: "loglevel",
    description: "`DEBUG`, `INFO`, `WARN`, `ERROR` or `SILENT` (none); logs go to stderr.",
  },
  SKILLHUB_SECRETS: {
    key: "secrets",
    kind: "list",
    description: "Further environment variable names never passed to scripts, commands or git (comma list).",
  },
  SKILLHUB_PASS_ENV: {
    key: "pass_env",
    kind: "list",
    description:
      "Variables scripts and commands may still receive although they are removed by default: those named like credentials (`*_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`, `*_CREDENTIALS`, `*_PWD`, `*_JWT`, `*_AUTH`, `*_AUTHTOKEN`, `*_PAT`, `*_PASS`, `*_PASSWD`, each also with `_FILE`, each but `KEY`, `PWD` and `PAT` also alone (`TOKEN`, `SECRET`), `*PASSWORD`, `*PASSPHRASE`, `*PASSFILE`, `AWS_SECRET*`), git configuration with a credential header (`GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_VALUE_<n>`), those that hand one over by reference (`SSH_AUTH_SOCK`, `GPG_AGENT_INFO`, `KRB5CCNAME`, `VSCODE_GIT_IPC_HANDLE`, `GNOME_KEYRING_CONTROL`, `DOCKER_AUTH_CONFIG`, `*ASKPASS`, `*AUTHORIZATION`), SkillHub's own URLs (`ANALYTICS_ENDPOINT`, `EMBEDDING_BASE_URL`, `OPENAI_BASE_URL`, `SKILLHUB_PUBLIC_URL`, `SKILLS_REPO`) and interpreter start-up hooks (`BASH_ENV`, `NODE_OPTIONS`, `PYTHONSTARTUP`, `LD_PRELOAD`, …); a library search path named here (`PYTHONPATH`, `NODE_PATH`, `PYTHONUSERBASE`, `GCONV_PATH`, …) keeps its empty and relative entries; a variable named here is handed over as it is, passwords in its URLs and connection strings included (comma list).",
  },
  SKILLS_DIR: {
    key: "sources.dirs",
    kind: "pathlist",
    description:
      "Extra skill folders, searched first (`:`-separated; `;` on Windows): every `--skills-dir`, then `SKILLS_DIR`, then the config file's (`skillhub add --global DIR` writes there), added together; a folder named twice is read once, at its first place.",
  },
  SKILLHUB_PROJECT_DIR: {
    key: "sources.project",
    kind: "string",
    default: "`CLAUDE_PROJECT_DIR`, the client's roots, or the working folder",
    description: "The project root, whose `.agents/skills` and `.claude/skills` are served.",
  },
  SKILLHUB_RESCAN_SECONDS: {
    key: "sources.rescan_seconds",
    kind: "int",
    description:
      "Seconds between stat checks of the folders and skill files no watch covers (a scan follows only a change); 0 turns them off.",
  },
  SKILLHUB_WATCH: {
    key: "sources.watch",
    kind: "bool",
    description:
      "Watch each source folder and every folder below it (any change, 500 ms debounce); off, the stat check covers everything.",
  },
  SKILLHUB_TRANSPORT: {
    key: "server.transport",
    kind: "string",
    description: "`stdio` (started by an MCP client) or `http` (a shared server, see [http.md](http.md)).",
  },
  SKILLHUB_HOST: {
    key: "server.host",
    kind: "string",
    description: "Address the HTTP server binds; anything but loopback needs `SKILLHUB_HTTP_TOKEN`.",
  },
  SKILLHUB_PORT: { key: "server.port", kind: "int", description: "HTTP port; 0 picks a free one (logged to stderr)." },
  SKILLHUB_STATELESS: {
    key: "server.stateless",
    kind: "bool",
    description: "HTTP without sessions: every POST gets a JSON answer, no event stream.",
  },
  SKILLHUB_NO_PROMPTS: {
    key: "server.no_prompts",
    kind: "bool",
    description: "Offer no MCP prompts (by default the most useful skills are also prompts, `/skill-name` in clients).",
  },
  SKILLHUB_PROMPTS: {
    key: "server.prompt_skills",
    kind: "string",
    description:
      "How many skills are MCP prompts: the most useful N (the project's, the most used, …), or `all` for every served skill.",
  },
  SKILLHUB_HTTP_TOKEN: {
    key: "server.token",
    kind: "string",
    secret: true,
    description: "Bearer token HTTP clients must send; required on a non-loopback address. Never logged.",
  },
  SKILLHUB_ADMIN_TOKEN: {
    key: "server.admin_token",
    kind: "string",
    secret: true,
    description:
      "The operator's token for the web page: with it the page also shows clients' searches and requests that found nothing, their feedback comments and the server's folders, which the clients' token (`SKILLHUB_HTTP_TOKEN`) does not see. Not accepted by `/mcp`; must differ from `SKILLHUB_HTTP_TOKEN`. Never logged.",
  },
  SKILLHUB_ALLOWED_ORIGINS: {
    key: "server.allowed_origins",
    kind: "list",
    description: "Extra `Origin` values accepted over HTTP (exact origins, comma list); these pages also get CORS.",
  },
  SKILLHUB_ALLOWED_HOSTS: {
    key: "server.allowed_hosts",
    kind: "list",
    description: "Further `Host` values the HTTP server accepts (comma list; `name:port` pins the port).",
  },
  SKILLHUB_PUBLIC_URL: {
    key: "server.public_url",
    url: true,
    kind: "string",
    default: "the address the client sent its request to",
    description:
      "The URL clients reach the HTTP server at when a reverse proxy stands in front (`https://skills.example.com`, or with the path the proxy serves it under): download links in answers start with it. `X-Forwarded-*` headers are never trusted.",
  },
  SKILLHUB_SESSION_IDLE_MINUTES: {
    key: "server.session_idle_minutes",
    kind: "int",
    description: "Minutes after which an idle HTTP session with no open stream is closed.",
  },
  SKILLHUB_TOOLS: {
    key: "server.tools",
    kind: "string",
    description: "Tool profile (`auto`, `skill`, `hub`, `tree`, `sk`, `all`) or a comma list of tool names.",
  },
  SKILLHUB_CATALOG_BUDGET: {
    key: "server.catalog_budget",
    kind: "int",
    default: "2,000 for Claude Code, else 6,000",
    description: "Characters for the `skill` tool's catalog of skills (at least 1,200).",
  },
  SKILLHUB_RESULT_BUDGET: {
    key: "server.result_budget",
    kind: "int",
    default: "50,000 for Claude Code, else 25,000",
    description:
      "Characters of one tool result the client shows whole (at least 4,000); a longer skill is served in parts, and get_skill inlines text assets up to it.",
  },
  SEARCH_LIMIT: { key: "search.limit", kind: "int", description: "Default number of `search_skills` results (1–100)." },
  SEARCH_THRESHOLD: {
    key: "search.threshold",
    kind: "number",
    description: "With more than 5 hits, keep those scoring at least this fraction of the top score.",
  },
  SEARCH_MODE: {
    key: "search.mode",
    kind: "string",
    default: "`hybrid` with an embedding provider, else `fts`",
    description: "`fts` (full text), `vector` or `hybrid`; see [search.md](search.md).",
  },
  SKILLHUB_REINDEX: {
    key: "search.reindex",
    kind: "bool",
    description: "Rebuild the search index from scratch at start-up.",
  },
  SKILLHUB_SKIP_AUTO_REINDEX: {
    key: "search.skip_auto_reindex",
    kind: "bool",
    description: "Use the saved search index as it is, even when skills changed since.",
  },
  EMBEDDING_PROVIDER: {
    key: "embedding.provider",
    kind: "string",
    description:
      "`none` (nothing leaves the machine), `openai`, `gemini` or `openai-compatible`; see [search.md](search.md).",
  },
  EMBEDDING_MODEL: {
    key: "embedding.model",
    kind: "string",
    default: "per provider",
    description:
      "Embedding model: `text-embedding-3-small` (openai), `gemini-embedding-001` (gemini), the server's (openai-compatible).",
  },
  EMBEDDING_BASE_URL: {
    key: "embedding.base_url",
    url: true,
    kind: "string",
    description: "The embedding server's URL; required for `openai-compatible`, overrides the others' URL.",
  },
  EMBEDDING_API_KEY: {
    key: "embedding.api_key",
    kind: "string",
    secret: true,
    description: "A key for any provider, used instead of the provider's own variable. Never logged.",
  },
  OPENAI_API_KEY: {
    key: "embedding.openai_api_key",
    kind: "string",
    secret: true,
    description: "The `openai` provider's key (required with it). Never logged.",
  },
  OPENAI_BASE_URL: {
    key: "embedding.openai_base_url",
    url: true,
    kind: "string",
    default: "`https://api.openai.com/v1`",
    description: "Where `openai` requests go (a proxy or gateway).",
  },
  GEMINI_API_KEY: {
    key: "embedding.gemini_api_key",
    kind: "string",
    secret: true,
    description: "The `gemini` provider's key (required with it). Never logged.",
  },
  EMBEDDING_TIMEOUT_SECONDS: {
    key: "embedding.timeout_seconds",
    kind: "number",
    description: "Time limit of one embedding request, in seconds.",
  },
  EMBEDDING_BATCH_SIZE: { key: "embedding.batch_size", kind: "int", description: "Texts sent per embedding request." },
  SKILLHUB_ENABLED_SKILLS: {
    key: "filters.enabled_skills",
    kind: "list",
    description: "Only these skills (names or tree paths, comma list) are listed, searched and loaded; empty = all.",
  },
  SKILLHUB_ENABLED_CATEGORIES: {
    key: "filters.enabled_categories",
    kind: "list",
    description: "When no skill list is given, only skills in these categories are usable; empty = all.",
  },
  MAX_FILE_BYTES: {
    key: "files.max_file_bytes",
    kind: "int",
    description: "Most bytes `read_skill_file` returns; longer text is cut, a larger binary file refused.",
  },
  SKILLHUB_ENABLE_COMMANDS: {
    key: "commands.enabled",
    kind: "bool",
    description: "Offer `run_skill_command` (off unless set here, by the flag or in your own config file).",
  },
  ALLOWED_COMMANDS: {
    key: "commands.allowed",
    kind: "list",
    description: "Bare command names `run_skill_command` may run (comma list, exact match).",
  },
  EXEC_TIMEOUT_SECONDS: {
    key: "commands.timeout_seconds",
    kind: "int",
    description: "Time limit of one `run_skill_command` run, in seconds.",
  },
  EXEC_MAX_OUTPUT_BYTES: {
    key: "commands.max_output_bytes",
    kind: "int",
    description: "Output kept per stream of one `run_skill_command` run (at most 16 MiB); the rest is dropped.",
  },
  SKILLS_REPO: {
    key: "git.repos",
    url: true,
    kind: "list",
    description: "Team skill repositories to sync: one git URL or a comma list; see [team.md](team.md).",
  },
  SKILLS_BRANCH: { key: "git.branch", kind: "string", description: "Branch the team repositories follow." },
  GITHUB_TOKEN: {
    key: "git.token",
    kind: "string",
    secret: true,
    description: "Token for private `https://` repositories, sent as a header to that host only. Never stored.",
  },
  ANALYTICS_ENDPOINT: {
    key: "analytics.endpoint",
    url: true,
    kind: "string",
    implies: { "analytics.enabled": true },
    description: "POST usage events to this URL (turns analytics on).",
  },
  SKILLHUB_ANALYTICS_FILE: {
    key: "analytics.file",
    kind: "string",
    implies: { "analytics.enabled": true },
    description: "Append usage events to this JSONL file (turns analytics on).",
  },
  SKILLHUB_ANALYTICS_FLUSH_SECONDS: {
    key: "analytics.flush_seconds",
    kind: "number",
    description: "Seconds between writes or POSTs of the usage event queue.",
  },
  REFRESH_INTERVAL_MINUTES: {
    key: "refresh.interval_minutes",
    kind: "int",
    implies: { "refresh.enabled": true },
    description: "Minutes between background syncs of the team repositories.",
  },
  SKILLS_REF: {
    key: "git.ref",
    kind: "string",
    description: "Pin every synced repository to a tag or a full commit instead of following `git.branch`.",
  },
  SKILLHUB_MAX_REPO_BYTES: {
    key: "git.max_repo_bytes",
    kind: "int",
    description:
      "Most bytes one sync of a team repository may bring onto disk: what git receives, and the files of the commit it checks out (each file at least 4 KiB); over it the sync fails with `GIT_TOO_LARGE` and the last copy stays served; 0 = no limit.",
  },
  SKILLHUB_LOCK: {
    key: "lock.file",
    kind: "string",
    default: "`<project>/skillhub.lock`, else `<home>/skillhub.lock`",
    description: "The lockfile written by `skillhub sync` and `skillhub lock` and checked by `verify` and `--frozen`.",
  },
  SKILLHUB_FROZEN: {
    key: "lock.frozen",
    kind: "bool",
    description: "Serve only skills whose digests match the lock; `sync` keeps every locked commit.",
  },
  SKILLHUB_ALLOWED_SIGNERS: {
    key: "trust.allowed_signers",
    kind: "string",
    description: "An SSH allowed-signers file: sync accepts only commits signed by a listed key.",
  },
  SKILLHUB_PLUGINS: {
    key: "plugins.enabled",
    kind: "bool",
    description: "Serve the skills of installed Claude Code plugins (lowest priority); `0` turns them off.",
  },
};

/** Config keys whose values are secrets, wherever they come from (a config file too): never echoed. */
export const SECRET_KEYS: ReadonlySet<string> = new Set(
  Object.values(ENV_SETTINGS)
    .filter((s) => s.secret)
    .map((s) => s.key),
);
