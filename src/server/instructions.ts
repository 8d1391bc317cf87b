import type { Skill } from "../skills/skill.ts";
import type { PickedSkill } from "../usage/skill-pick.ts";

/** What the instructions need of a skill (a catalog skill, or one kept from the last run). */
export type NamedSkill = Pick<Skill, "id" | "kind" | "name" | "description" | "alwaysApply">;

/** A skill the last run's snapshot keeps for the instructions: enough to pick again (usage/skill-pick.ts). */
export type KeptNamedSkill = NamedSkill & PickedSkill;

/** Bytes the instructions stay under: Claude Code cuts server instructions at 2 KB. */
export const INSTRUCTIONS_BUDGET = 2048;

/** Most skills the instructions name (the rest are found with search_skills or the skill tool). */
export const NAMED_SKILLS_MAX = 12;

export interface InstructionsInput {
  /** Tools offered in this session. */
  tools: readonly string[];
  /** Tools the `auto` profile adds once the catalog calls for them (not scanned yet at initialize). */
  mayOffer?: readonly string[];
  /** Served skills to name, most useful first (usage/skill-pick.ts). Default none. */
  skills?: readonly NamedSkill[];
  /** The client runs on another machine (HTTP): skills name their files by skill:// URI. */
  remote?: boolean;
  /** Whether skills are also MCP prompts (off with --no-prompts). Default true. */
  prompts?: boolean;
}

/**
 * `initialize` / `server/discover` instructions. Hosts that defer tool
 * schemas behind tool search (Claude Code, Codex, VS Code) show a model the
 * tool names and these instructions only, so they say how to find and load a
 * skill and name the most useful skills, within INSTRUCTIONS_BUDGET bytes.
 */
export function serverInstructions(input: InstructionsInput): string {
  const has = (name: string) => input.tools.includes(name);
  const parts = [
    'SkillHub serves skills: expert, tested instructions for specific tasks. When a task matches a skill (or you wonder "how do I..."), load the skill first and follow it.',
  ];
  // Search matches what a skill is for: the task in the model's words finds it, a guessed skill name may not.
  if (has("search_skills"))
    parts.push(
      "Find one with search_skills: describe the task in your own words (what you want done, not a skill's name).",
    );
  if (has("skill")) parts.push(`Load one by name with skill${has("load_skill") ? " or load_skill" : ""}.`);
  else if (has("load_skill")) parts.push("Load one with load_skill.");
  if (input.remote)
    parts.push(
      `This server is remote: a skill's files are skill://<name>/<path> URIs, not on your disk; fetch them with ${has("read_skill_file") ? "read_skill_file or " : ""}resources/read, and save a script's files in a local folder before running it.`,
    );
  else if (has("read_skill_file")) parts.push("Read files a skill mentions with read_skill_file.");
  if (has("get_skill"))
    parts.push("For team skill trees, call get_skill with the task context; fetch listed files with get_asset.");
  else if (input.mayOffer?.includes("get_skill"))
    parts.push("If get_skill is listed (team skill trees), call it with the task context.");
  if (has("skills.search")) parts.push("Use skills.search for targeted lookups and skills.list for everything.");
  parts.push(
    input.prompts === false
      ? "Skills are also skill:// resources."
      : "Skills are also MCP prompts and skill:// resources.",
  );
  const head = parts.join(" ");
  return withSkills(head, input);
}

/** The head, then as many of the most useful skills as fit the budget, in the order given. */
function withSkills(head: string, input: InstructionsInput): string {
  // A tree's _root and _index nodes are its structure, not tasks: get_skill routes to them.
  const skills = (input.skills ?? []).filter((s) => s.kind === "agent-skill" || !s.name.includes("/_"));
  if (skills.length === 0) return head;
  const lines: string[] = [];
  const bytes = (text: string) => Buffer.byteLength(text, "utf8");
  const render = (more: number) =>
    `${head}\nSkills include:\n${lines.join("\n")}${more > 0 ? `\n(${more} more; search or list them.)` : ""}`;
  for (const skill of skills.slice(0, NAMED_SKILLS_MAX)) {
    const line = `- ${skill.name}: ${shorten(skill.description, 90)}`;
    lines.push(line);
    if (bytes(render(skills.length - lines.length)) > INSTRUCTIONS_BUDGET) {
      lines.pop();
      break;
    }
  }
  return lines.length === 0 ? head : render(skills.length - lines.length);
}

function shorten(text: string, max: number): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length <= max ? one : `${one.slice(0, max - 1).trimEnd()}…`;
}
