import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** The real SKILL.md corpora (../shared/corpora, or SKILLHUB_CORPORA); undefined when absent. */
export function corporaDir(): string | undefined {
  const dir = process.env.SKILLHUB_CORPORA ?? join(import.meta.dir, "..", "..", "..", "shared", "corpora");
  return existsSync(dir) ? dir : undefined;
}

/** Each corpus folder (anthropics-skills, openai-skills, ...). */
export function corpusFolders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(dir, e.name))
    .sort();
}
