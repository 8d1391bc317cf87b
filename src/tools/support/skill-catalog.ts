import type { Skill } from "../../skills/skill.ts";
import type { SkillLocation } from "./skill-location.ts";

/**
 * The skill tool's description template; `${dynamicSkillsList}` is replaced by the listing and `${examples}`
 * by examples that name served skills (skillExamples): the template's original ones (`pdf`, `xlsx`,
 * `ms-office-suite:pdf`) named skills a server may not have, and a model copies examples.
 */
export const SKILL_TOOL_TEMPLATE = `Execute a skill within the main conversation

<skills_instructions>
When users ask you to perform tasks, check if any of the available skills below can help complete the task more effectively. Skills provide specialized capabilities and domain knowledge.

How to use skills:
- Invoke skills using this tool with the skill name only (no arguments)
- When you invoke a skill, you will see <command-message>The "{name}" skill is loading</command-message>
- The skill's prompt will expand and provide detailed instructions on how to complete the task
\${examples}
Important:
- Only use skills listed in <available_skills> below
- Do not invoke a skill that is already running
- Do not use this tool for built-in CLI commands (like /help, /clear, etc.)
</skills_instructions>

<available_skills>
\${dynamicSkillsList}
</available_skills>`;

/** Claude Code cuts tool descriptions at 2,048 characters. */
export const CLAUDE_CODE_BUDGET = 2000;
export const DEFAULT_BUDGET = 6000;

export interface CatalogListingOptions {
  /** Most characters for the whole description. */
  budget: number;
  /**
   * The skills in the order to keep when not every name fits, most useful first (usage/skill-pick.ts:
   * alwaysApply, the project's, the most used, …), asked for only then. Default: alwaysApply first, then as given.
   */
  ranked?: () => readonly Skill[];
  /** Whether search_skills is offered, for the "…and N more" hint. */
  hasSearch: boolean;
  /** The skill tool's `<location>` (project|global|hub) of a skill. Default: project for project folders, else global. */
  location?: (skill: Skill) => SkillLocation;
  /** The skills are still being read (a first start): the listing says so instead of listing none. */
  pending?: boolean;
  /** A served qualified name (`<source>:<name>`) for the examples: a skill hidden by one of the same name. */
  qualifiedExample?: string;
}

/**
 * The template's examples, naming served skills only: the first one listed, and a qualified name when a
 * skill is hidden by another of the same name (the only time a model needs one). None without skills.
 */
export function skillExamples(skills: readonly Skill[], qualified?: string): string {
  // A short name: an example must not take the listing's room.
  const first = skills.find((s) => s.name.length <= EXAMPLE_NAME_MAX);
  if (!first) return "";
  const lines = ["- Examples:", `  - \`name: ${JSON.stringify(first.name)}\` - invoke the ${first.name} skill`];
  if (qualified && qualified.length <= 2 * EXAMPLE_NAME_MAX)
    lines.push(`  - \`name: ${JSON.stringify(qualified)}\` - invoke a skill by its qualified name (<source>:<name>)`);
  return `${lines.join("\n")}\n`;
}

/** Longest skill name an example shows (the Agent Skills limit). */
const EXAMPLE_NAME_MAX = 64;

/**
 * The skill tool's description: its template with the skills filled
 * in, within the budget. Over budget, in order: shorten descriptions, list
 * names only, then list the most useful skills (`ranked`: alwaysApply, the
 * project's, the most used, …) and say how many more there are. Pure.
 */
export function renderSkillToolDescription(skills: readonly Skill[], options: CatalogListingOptions): string {
  const ordered = [...skills.filter((s) => s.alwaysApply), ...skills.filter((s) => !s.alwaysApply)];
  const template = SKILL_TOOL_TEMPLATE.replace("${examples}", skillExamples(ordered, options.qualifiedExample));
  if (options.pending) return template.replace("${dynamicSkillsList}", pendingLine(options.hasSearch));
  const fill = (list: string) => template.replace("${dynamicSkillsList}", list);
  // Room for the listing: the template minus its placeholder. Lengths are summed, not rendered, to stay linear.
  const room = options.budget - (template.length - "${dynamicSkillsList}".length);
  const joinedLength = (lines: readonly string[]) =>
    lines.reduce((n, l) => n + l.length + 1, 0) - (lines.length > 0 ? 1 : 0);
  const attempt = (lines: string[]) => (joinedLength(lines) <= room ? fill(lines.join("\n")) : undefined);

  const names = ordered.map(nameEntry);
  // Names only is the shortest full listing: when even that does not fit, skip the longer tries.
  if (joinedLength(names) <= room) {
    const where = options.location ?? ((s: Skill) => (s.location === "project" ? "project" : "global"));
    const entry = (skill: Skill, description: string) =>
      `<skill>\n<name>${xml(skill.name)}</name>\n<description>${xml(description)}</description>\n<location>${where(skill)}</location>\n</skill>`;
    const full = attempt(ordered.map((s) => entry(s, oneLine(s.description))));
    if (full) return full;
    for (const max of [240, 160, 100, 60, 30]) {
      const shortened = attempt(ordered.map((s) => entry(s, truncate(oneLine(s.description), max))));
      if (shortened) return shortened;
    }
    return fill(names.join("\n"));
  }

  // Not even every name fits: the most useful first (alwaysApply, the project's, the most used, …).
  const listed = new Set(ordered);
  const ranked = options.ranked ? options.ranked().filter((s) => listed.has(s)) : ordered;
  const lines: string[] = [];
  let used = 0;
  for (const skill of ranked) {
    const line = nameEntry(skill);
    const more = moreLine(ranked.length - lines.length - 1, options.hasSearch);
    if (used + line.length + 1 + more.length > room) break;
    lines.push(line);
    used += line.length + 1;
  }
  return fill([...lines, moreLine(ranked.length - lines.length, options.hasSearch)].join("\n"));
}

function nameEntry(skill: Skill): string {
  return `<skill><name>${xml(skill.name)}</name></skill>`;
}

/** What the listing says while the skill folders are still being read: a model must not conclude there are none. */
function pendingLine(hasSearch: boolean): string {
  return `SkillHub is still reading the skill folders; this list follows as soon as it has. Any skill name works with this tool now${hasSearch ? ", and search_skills finds skills by topic" : ""}.`;
}

function moreLine(count: number, hasSearch: boolean): string {
  return hasSearch
    ? `…and ${count} more: use search_skills to find them (any skill name works with this tool).`
    : `…and ${count} more (any skill name works with this tool).`;
}

/** Collapse whitespace: block-scalar descriptions span lines. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

function xml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
