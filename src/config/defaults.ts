import type { Config } from "./schema.ts";

/**
 * Every setting's default, in one place: resolveConfig starts from these, applies config files,
 * environment variables and flags, and validates with the schema (schema.ts) only the keys that
 * then differ from here. A plain object rather than zod `.default()`s, so that a start need not
 * build the whole schema. Typed as Config, so a setting added to the schema without a
 * default here does not compile unless it is optional; a test checks the schema accepts these.
 * Key order follows the schema's.
 */
export function configDefaults(home: string): Config {
  return {
    home,
    log_level: "INFO",
    secrets: [],
    pass_env: [],
    sources: {
      dirs: [],
      project_dirs: [],
      only_dirs: false,
      rescan_seconds: 30,
      watch: true,
      debounce_ms: 500,
      max_depth: 8,
      // 50,000 skills with a few resource folders each; reaching it is a warning (dir-limit).
      max_dirs: 250_000,
    },
    server: {
      transport: "stdio",
      host: "127.0.0.1",
      port: 8000,
      stateless: false,
      prompts: true,
      no_prompts: false,
      prompt_skills: 30,
      allowed_origins: [],
      allowed_hosts: [],
      session_idle_minutes: 30,
      tools: "auto",
      roots_timeout_seconds: 2,
    },
    search: { limit: 10, threshold: 0.2, reindex: false, skip_auto_reindex: false },
    embedding: { provider: "none", timeout_seconds: 10, batch_size: 64 },
    filters: { enabled_skills: [], enabled_categories: [] },
    files: { max_file_bytes: 65_536 },
    commands: {
      enabled: false,
      allowed: ["python", "uv", "node", "cat", "ls", "grep"],
      timeout_seconds: 60,
      max_output_bytes: 65_536,
    },
    matching: { min_score: 0.2, max_results: 3, ambiguity_threshold: 0.1 },
    refresh: { enabled: true, interval_minutes: 15 },
    scripts: {
      enabled: true,
      timeout_seconds: 60,
      max_output_bytes: 1_048_576,
      allowed_extensions: [".sh", ".ts", ".js", ".py"],
      allow_project: false,
      runners: { ".sh": "bash", ".ts": "skillhub", ".js": "skillhub", ".py": "python3" },
    },
    assets: { max_size_bytes: 1_048_576, inline_text_max_bytes: 10_240 },
    analytics: { enabled: false, endpoint: "", file: "", flush_seconds: 30, max_queue: 10_000 },
    // A team's skills are text: a repository that sends more holds a large file by mistake, or is hostile.
    git: { repos: [], branch: "main", max_repo_bytes: 1_073_741_824 },
    lock: { frozen: false },
    trust: {},
    plugins: { enabled: true },
    content: { max_tokens: 8_000 },
  };
}
