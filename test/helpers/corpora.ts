import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { runsHere } from "./runs-here.ts";

/** The real SKILL.md corpora (../shared/corpora, or SKILLHUB_CORPORA); undefined when absent. */
function corporaDir(): string | undefined {
  const dir = process.env.SKILLHUB_CORPORA ?? join(import.meta.dir, "..", "..", "..", "shared", "corpora");
  return existsSync(dir) ? dir : undefined;
}

/** corporaDir() for a group of tests that need it: when it is absent, one line says they are skipped and why. */
export function corporaFor(tests: string): string | undefined {
  const dir = corporaDir();
  runsHere(dir !== undefined, tests, "../shared/corpora is absent (set SKILLHUB_CORPORA to run them)");
  return dir;
}

/** Each corpus folder (anthropics-skills, openai-skills, ...). */
export function corpusFolders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(dir, e.name))
    .sort();
}
