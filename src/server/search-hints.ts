/**
 * Words appended to a tool's description so that hosts which defer tool
 * schemas behind tool search (Claude Code, Codex, VS Code) find SkillHub's
 * tools for the queries a model types: "skill", "how do I ...", a topic.
 * The skill tool's description already lists the skills (their topics) within
 * a budget of its own (Claude Code's 2,000 characters), so it gets no hint.
 */
const HINTS: Readonly<Record<string, string>> = {
  search_skills: 'Use it for "how do I ..." questions: find the skill (expert instructions) for a task or topic.',
  load_skill: 'Loads the skill a search found, to answer "how do I ..." with tested instructions.',
  list_skills: "Lists every skill (expert instructions) this server offers.",
};

/** The description with its search hint, once. */
export function withSearchHint(name: string, description: string): string {
  const hint = HINTS[name];
  return hint && !description.includes(hint) ? `${description}\n\n${hint}` : description;
}
