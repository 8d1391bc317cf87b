import { basename, relative, sep } from "node:path";
import { z } from "zod";
import type { Skill } from "../../skills/skill.ts";

/** The sk profile's SkillSummary (a function: tool schemas are built on first use, tools/definition.ts). */
export const SkillSummary = () =>
  z.object({
    installName: z.string().describe("The skill's folder name"),
    meta: z.object({ name: z.string(), description: z.string() }),
    skillPath: z.string().describe("The skill folder, relative to the project root when inside it, else absolute"),
    skillFile: z.string().describe("The SKILL.md file, same convention"),
    body: z.string().optional().describe("SKILL.md without frontmatter, when asked for"),
  });
export type SkillSummary = z.infer<ReturnType<typeof SkillSummary>>;

export function summarise(skill: Skill, projectDir: string | null, body?: string): SkillSummary {
  return {
    installName: basename(skill.dir),
    meta: { name: skill.name, description: skill.description },
    skillPath: shown(skill.dir, projectDir),
    skillFile: shown(skill.file, projectDir),
    ...(body === undefined ? {} : { body }),
  };
}

function shown(path: string, projectDir: string | null): string {
  if (projectDir && (path === projectDir || path.startsWith(projectDir + sep)))
    return relative(projectDir, path).split(sep).join("/") || ".";
  return path;
}

/** The sk profile's default skills root, under the project root. */
export const SK_DEFAULT_ROOT = "skills";

/**
 * The project-relative skills root to read: `--root` when given, else
 * `skills` when the sk tools are offered (they walk `<project>/skills`),
 * else none.
 */
export function skProjectRoot(configured: string | undefined, toolNames: readonly string[]): string | undefined {
  if (configured !== undefined) return configured;
  return toolNames.some((n) => n === "skills.list" || n === "skills.search") ? SK_DEFAULT_ROOT : undefined;
}
