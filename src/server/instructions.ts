/**
 * `initialize` instructions: under 512 characters, self-contained, naming
 * only the tools this session offers (DESIGN §9). `mayOffer` are tools the
 * `auto` profile adds once the catalog calls for them (it is not scanned yet
 * when a client initializes).
 */
export function serverInstructions(tools: readonly string[], mayOffer: readonly string[] = []): string {
  const has = (name: string) => tools.includes(name);
  const parts = ["SkillHub serves skills: expert instructions for specific tasks."];
  if (has("search_skills"))
    parts.push("Before a specialised task, call search_skills with a short description of the task.");
  if (has("skill"))
    parts.push(
      `Load a skill by name with skill (its description lists them)${has("load_skill") ? " or load_skill." : "."}`,
    );
  else if (has("load_skill")) parts.push("Load one with load_skill.");
  if (has("read_skill_file")) parts.push("Read files a skill mentions with read_skill_file.");
  if (has("get_skill"))
    parts.push("For team skill trees, call get_skill with the task context; fetch listed files with get_asset.");
  else if (mayOffer.includes("get_skill"))
    parts.push("If get_skill is listed (team skill trees), call it with the task context.");
  if (has("skills.search")) parts.push("Use skills.search for targeted lookups and skills.list for everything.");
  parts.push("Follow a loaded skill's instructions.");
  return parts.join(" ");
}
