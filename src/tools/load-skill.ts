import { z } from "zod";
import { checkedInstructions, isRefused } from "../lock/checked-read.ts";
import { lastReadFolder } from "../skills/skill-read.ts";
import { listSkillFiles } from "../sources/skill-files.ts";
import { defineTool, READ_ONLY } from "./definition.ts";
import { structuredResult } from "./results.ts";
import { lookupSkill, readFailure, recordLoad, refusalResult } from "./support/skill-lookup.ts";

const Input = () =>
  z.object({
    skill_name: z
      .string()
      .min(1)
      .describe("Skill name from search_skills (case-insensitive), or <source>:<name> for a shadowed one"),
  });

const Output = () =>
  z.object({
    name: z.string(),
    instructions: z
      .string()
      .describe("The SKILL.md body without frontmatter (a tree node: its inherited content); follow it"),
    path: z.string().describe("Absolute skill folder: relative paths in the instructions start here"),
    files: z
      .array(
        z.object({ path: z.string().describe("Relative to the skill folder"), size: z.number().describe("Bytes") }),
      )
      .describe("The skill's other files; read them with read_skill_file"),
    files_truncated: z.boolean().optional().describe("True when the skill has more files than listed"),
  });

/** Seed 000 `load_skill`: a skill's instructions, its folder and its file list. */
export const loadSkillTool = defineTool({
  name: "load_skill",
  title: "Load Skill Instructions",
  annotations: READ_ONLY,
  inputSchema: Input,
  outputSchema: Output,
  description: () =>
    "Load one skill's instructions (SKILL.md without frontmatter) by name, with its folder path and file list. " +
    "Use a name from search_skills; read listed files with read_skill_file.",
  handler: async ({ skill_name }, { deps }) => {
    const { skill, error } = await lookupSkill(skill_name, deps);
    if (error) return error;
    // Read once; frozen, served only when the lock records the digest of these very bytes.
    const read = checkedInstructions(deps.frozen, deps.store.catalog, skill);
    if (isRefused(read)) return refusalResult(skill, read.refused);
    if (!read.ok) return readFailure(skill_name, skill, read, deps);
    const instructions = read.text;
    const listed = listSkillFiles(skill.dir, {
      realDir: lastReadFolder(skill),
      knownEntries: deps.knownEntries?.bind(deps),
    });
    // Frozen: only the files the lock records are named (read_skill_file refuses the others).
    const locked = deps.frozen?.lockedFiles(skill);
    const files = locked ? listed.files.filter((f) => locked.has(f.path)) : listed.files;
    const truncated = listed.truncated;
    recordLoad(deps, skill, "load_skill");
    return structuredResult({
      name: skill.name,
      instructions,
      path: skill.dir,
      files,
      ...(truncated ? { files_truncated: true } : {}),
    });
  },
});
