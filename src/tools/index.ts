import type { Catalog } from "../catalog/catalog.ts";
import { isEnabled } from "../catalog/filters.ts";
import type { Config } from "../config/schema.ts";
import { closestWord } from "../util/close-names.ts";
import { ConfigError } from "../util/errors.ts";
import type { ToolDefinition } from "./definition.ts";
import { getAssetTool } from "./get-asset.ts";
import { getSkillTool } from "./get-skill.ts";
import { listSkillsTool } from "./list-skills.ts";
import { loadSkillTool } from "./load-skill.ts";
import { readSkillFileTool } from "./read-skill-file.ts";
import { refreshSkillsTool } from "./refresh-skills.ts";
import { reportUsageTool } from "./report-usage.ts";
import { runScriptTool } from "./run-script.ts";
import { runSkillCommandTool } from "./run-skill-command.ts";
import { searchSkillsTool } from "./search-skills.ts";
import { skillTool } from "./skill.ts";
import { skListTool } from "./skills-list.ts";
import { skSearchTool } from "./skills-search.ts";
import { projectOwnership } from "./support/project-owned.ts";

/** Every tool this build offers (one per line, so additions do not collide). */
const ALL_TOOLS: ToolDefinition[] = [
  skillTool,
  searchSkillsTool,
  loadSkillTool,
  readSkillFileTool,
  skListTool,
  skSearchTool,
  refreshSkillsTool,
  reportUsageTool,
  getSkillTool,
  getAssetTool,
  listSkillsTool,
  runScriptTool,
  runSkillCommandTool,
];

/** Every tool this build offers, by name. */
export const TOOLS: ReadonlyMap<string, ToolDefinition> = new Map(ALL_TOOLS.map((t) => [t.name, t]));

/** Named profiles. `auto` is computed from the catalog and the config. */
export const PROFILES: Readonly<Record<string, readonly string[]>> = {
  skill: ["skill"],
  hub: ["search_skills", "load_skill", "read_skill_file", "run_skill_command"],
  tree: ["get_skill", "list_skills", "get_asset", "run_script", "report_usage", "refresh_skills"],
  sk: ["skills.list", "skills.search"],
  all: [
    "skill",
    "search_skills",
    "load_skill",
    "read_skill_file",
    "list_skills",
    "get_skill",
    "get_asset",
    "run_script",
    "run_skill_command",
    "report_usage",
    "refresh_skills",
  ],
};

const AUTO_BASE = ["skill", "search_skills", "load_skill", "read_skill_file", "list_skills", "refresh_skills"];

export type ToolSelection = { kind: "auto" } | { kind: "fixed"; names: readonly string[] };

/** `--tools` / SKILLHUB_TOOLS → a selection. Unknown names are a usage error (exit 2). */
export function parseToolSelection(spec: string): ToolSelection {
  const trimmed = spec.trim();
  if (trimmed === "auto") return { kind: "auto" };
  const profile = PROFILES[trimmed];
  if (profile) return { kind: "fixed", names: profile };
  const names = trimmed
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !TOOLS.has(n));
  if (names.length === 0 || unknown.length > 0) {
    throw new ConfigError(
      `Invalid configuration: --tools / SKILLHUB_TOOLS = ${JSON.stringify(spec)}: ${names.length === 0 ? "empty" : unknown.map(unknownTool).join("; ")}; expected a profile (auto, ${Object.keys(PROFILES).join(", ")}) or a comma list of: ${[...TOOLS.keys()].join(", ")}.`,
      { key: "server.tools", value: spec },
    );
  }
  return { kind: "fixed", names };
}

/** Why `name` is no tool, for a comma list: a profile cannot be one of its items; a close tool is named. */
function unknownTool(name: string): string {
  if (name === "auto" || PROFILES[name]) return `'${name}' is a profile, which is given alone, not in a list`;
  const close = closestWord(name, [...TOOLS.keys()]);
  return `unknown tool '${name}'${close ? ` (did you mean '${close}'?)` : ""}`;
}

/** The tools offered now. `auto` follows the catalog, so the set can change with it. */
export function selectTools(selection: ToolSelection, catalog: Catalog, config: Config): ToolDefinition[] {
  const names = selection.kind === "fixed" ? selection.names : autoNames(catalog, config);
  // Security: run_skill_command exists only when enabled explicitly, whatever the profile or list says.
  const offered = config.commands.enabled ? names : names.filter((n) => n !== "run_skill_command");
  return offered.map((n) => TOOLS.get(n)).filter((t): t is ToolDefinition => t !== undefined);
}

function autoNames(catalog: Catalog, config: Config): string[] {
  const names = [...AUTO_BASE];
  const filter = { skills: config.filters.enabled_skills, categories: config.filters.enabled_categories };
  // Only an enabled node can be asked for: a tree that the filters hide entirely gets no tree tools. A content
  // repository configured but empty (yet) gets them too: they answer no_match until it has nodes. Repositories
  // that hold Agent Skills only do not: the tree tools could never find anything there.
  const emptyRepos = config.git.repos.length > 0 && !catalog.skills.some((s) => s.location === "remote");
  if (emptyRepos || catalog.skills.some((s) => s.kind === "tree-node" && isEnabled(s, filter)))
    names.push("get_skill", "get_asset");
  if (config.analytics.enabled) names.push("report_usage");
  if (config.scripts.enabled && declaresServerScript(catalog, config)) names.push("run_script");
  if (config.commands.enabled) names.push("run_skill_command");
  return names;
}

/** Whether an enabled tree node declares a script with `execution: server` (then `auto` offers run_script). */
function declaresServerScript(catalog: Catalog, config: Config): boolean {
  const filter = { skills: config.filters.enabled_skills, categories: config.filters.enabled_categories };
  const projectOwned = projectOwnership(config);
  return catalog.skills.some(
    (s) =>
      s.kind === "tree-node" &&
      isEnabled(s, filter) &&
      (config.scripts.allow_project || !projectOwned(s)) &&
      s.tree.scripts.some((d) => d.execution === "server"),
  );
}
