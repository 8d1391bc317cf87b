import { basename, relative, sep } from "node:path";
import { z } from "zod";
import type { Skill } from "../skills/skill.ts";

/** Seed 001's SkillSummary. */
export const SkillSummary = z.object({
  installName: z.string().describe("The skill's folder name"),
  meta: z.object({ name: z.string(), description: z.string() }),
  skillPath: z.string().describe("The skill folder, relative to the project root when inside it, else absolute"),
  skillFile: z.string().describe("The SKILL.md file, same convention"),
  body: z.string().optional().describe("SKILL.md without frontmatter, when asked for"),
});
export type SkillSummary = z.infer<typeof SkillSummary>;

/** Every seed-001 tool rescans when the catalog is older than this, so results reflect the disk. */
export const SK_FRESHNESS_MS = 2000;

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
