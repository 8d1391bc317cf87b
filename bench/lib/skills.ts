/**
 * Generated skill sets for benchmarks: N skill folders whose SKILL.md files
 * are real ones from the corpora (renamed to be unique), so sizes and
 * shapes are realistic; synthetic text when the corpora are absent.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Glob } from "bun";

const corpora = process.env.SKILLHUB_CORPORA ?? join(import.meta.dir, "..", "..", "..", "shared", "corpora");

function samples(): string[] {
  if (!existsSync(corpora)) {
    return Array.from(
      { length: 50 },
      (_, i) =>
        `---\nname: x\ndescription: Synthetic skill ${i} about topic ${i % 7} for benchmarks.\n---\n\n# Topic ${i}\n\n${"Some instructions. ".repeat(200)}\n`,
    );
  }
  return [...new Glob("**/SKILL.md").scanSync({ cwd: corpora, dot: true, absolute: true })]
    .sort()
    .map((f) => readFileSync(f, "utf8"));
}

/** Write `count` skills under `root`, named skill-00000..; returns their names. */
export function generateSkills(root: string, count: number): string[] {
  mkdirSync(root, { recursive: true });
  const texts = samples();
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `skill-${String(i).padStart(5, "0")}`;
    const text = (texts[i % texts.length] as string).replace(/^(---\r?\n[\s\S]*?)^name:.*$/m, `$1name: ${name}`);
    mkdirSync(join(root, name), { recursive: true });
    writeFileSync(join(root, name, "SKILL.md"), text);
    names.push(name);
  }
  return names;
}
