import { z } from "zod";
import { checkedInstructions, isRefused } from "../lock/checked-read.ts";
import { defineTool, READ_ONLY } from "./definition.ts";
import { structuredResult } from "./results.ts";
import { fitInstructions } from "./support/instruction-parts.ts";
import { downloadAdvice } from "./support/skill-archive.ts";
import { exampleFile, skillFiles } from "./support/skill-file-list.ts";
import { lookupSkill, readFailure, recordLoad, refusalResult } from "./support/skill-lookup.ts";
import { fetchablePaths } from "./support/skill-parts.ts";
import { fetchAdvice, skillPlace } from "./support/skill-place.ts";

const Input = () =>
  z.object({
    skill_name: z
      .string()
      .min(1)
      .describe("Skill name from search_skills (case-insensitive), or <source>:<name> for a shadowed one"),
  });

const Output = () =>
  z.object({
    name: z.string().describe("The name that reaches this skill (<source>:<name> for a shadowed one)"),
    instructions: z
      .string()
      .describe("The SKILL.md body without frontmatter (a tree node: its inherited content); follow it"),
    path: z
      .string()
      .describe(
        "The skill folder, where relative paths in the instructions start: its absolute path when this client shares the server's disk (stdio), else its skill:// URI",
      ),
    uri: z.string().optional().describe("The folder's skill:// URI: a file is <uri>/<path>"),
    files: z
      .array(
        z.object({
          path: z.string().describe("Relative to the skill folder"),
          size: z.number().describe("Bytes"),
          uri: z.string().optional().describe("The file's skill:// URI (for a client on another machine)"),
        }),
      )
      .describe("The skill's other files; read them with read_skill_file"),
    files_truncated: z.boolean().optional().describe("True when the skill has more files than listed"),
    fetch: z
      .string()
      .optional()
      .describe("For a client on another machine: how to fetch the files, and how to run a script locally"),
  });

/** `load_skill`: a skill's instructions, its folder and its file list. */
export const loadSkillTool = defineTool({
  name: "load_skill",
  title: "Load Skill Instructions",
  annotations: READ_ONLY,
  inputSchema: Input,
  outputSchema: Output,
  description: () =>
    "Load one skill's instructions (SKILL.md without frontmatter) by name, with its folder path and file list. " +
    "Use a name from search_skills; read listed files with read_skill_file.",
  handler: async ({ skill_name }, ctx) => {
    const { deps } = ctx;
    const { skill, error } = await lookupSkill(skill_name, deps);
    if (error) return error;
    // Read once; frozen, served only when the lock records the digest of these very bytes.
    const read = checkedInstructions(deps.frozen, deps.store.catalog, skill);
    if (isRefused(read)) return refusalResult(skill, read.refused);
    if (!read.ok) return readFailure(skill, read, deps);
    const instructions = read.text;
    const { files, truncated } = skillFiles(skill, ctx);
    recordLoad(ctx, skill, "load_skill");
    const place = skillPlace(skill, ctx);
    const answer = {
      // The name that reaches this very skill: read_skill_file with a shadowed skill's plain name would
      // read the one served under it.
      name: place.name,
      instructions,
      path: place.base,
      uri: place.uri(""),
      files: place.remote ? files.map((f) => ({ ...f, uri: place.uri(f.path) })) : files,
      ...(truncated ? { files_truncated: true } : {}),
      ...(place.remote
        ? {
            fetch: fetchAdvice(
              skill,
              place,
              ctx,
              exampleFile(fetchablePaths(skill, ctx, files).paths),
              downloadAdvice(skill, ctx)?.text,
            ),
          }
        : {}),
    };
    return structuredResult(fitInstructions(answer, skill, ctx, place));
  },
});
