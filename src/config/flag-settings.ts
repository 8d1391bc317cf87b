import type { Setting } from "./settings.ts";

/** The flags that are settings (parsed by `args.ts`, which says which commands take each), mapped to config keys. */
export const FLAG_SETTINGS: Record<string, Setting> = {
  "skills-dir": { key: "sources.dirs", kind: "pathlist", description: "An extra skills folder (repeatable)." },
  project: { key: "sources.project", kind: "string", description: "The project root." },
  root: {
    key: "sources.project_skills",
    kind: "string",
    default: "`skills` with the `sk` tools and `mcp-server`, else none",
    description:
      "A skills folder under the project root, read right after `--skills-dir`: the one the `sk` tools (`SKILLHUB_TOOLS=sk`, which the one-shot commands follow too) and `skillhub mcp-server` read; with other tools, read only when set.",
  },
  "no-watch": { key: "sources.watch", kind: "bool", description: "No file watcher (the rescan timer still runs)." },
  "no-prompts": {
    key: "server.prompts",
    kind: "bool",
    description: "Offer no MCP prompts (the most useful skills are prompts by default).",
  },
  transport: { key: "server.transport", kind: "string", description: "`stdio` or `http`." },
  host: { key: "server.host", kind: "string", description: "Address the HTTP server binds." },
  port: { key: "server.port", kind: "int", description: "HTTP port." },
  stateless: { key: "server.stateless", kind: "bool", description: "HTTP without sessions." },
  tools: { key: "server.tools", kind: "string", description: "Tool profile or comma list of tools." },
  reindex: { key: "search.reindex", kind: "bool", description: "Rebuild the search index." },
  "skip-auto-reindex": { key: "search.skip_auto_reindex", kind: "bool", description: "Use the saved index as it is." },
  "enable-commands": { key: "commands.enabled", kind: "bool", description: "Offer `run_skill_command`." },
  "log-level": { key: "log_level", kind: "loglevel", description: "Log level." },
  home: { key: "home", kind: "string", description: "SkillHub's own folder." },
  frozen: { key: "lock.frozen", kind: "bool", description: "Serve only what `skillhub.lock` records." },
};
