/**
 * Distractor skills for `make eval --scale`: plausible-looking SKILL.md files
 * whose words are drawn from the real corpora's own word stream (so common
 * words stay common and rare ones rare), with a fixed seed. They share the
 * corpora's vocabulary without being copies of any skill, so they dilute the
 * index the way a large catalog does without making a query's answer ambiguous.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Glob } from "bun";

/** Write `count` distractor skills under `root`, sampling words from the SKILL.md files under `corpora`. */
export function writeDistractors(root: string, count: number, corpora: readonly string[]): void {
  const words: string[] = [];
  for (const dir of corpora)
    for (const file of new Glob("**/SKILL.md").scanSync({ cwd: dir, absolute: true }))
      for (const w of readFileSync(file, "utf8").split(/\s+/)) if (/^[A-Za-z][A-Za-z-]{2,}$/.test(w)) words.push(w);
  if (words.length === 0) throw new Error("no words in the corpora to build distractors from");
  let seed = 16;
  // Mulberry32: a small, fixed, portable generator, so every run sees the same distractors.
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (n: number) => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(" ");
  for (let i = 0; i < count; i++) {
    const name = `distractor-${String(i).padStart(5, "0")}`;
    const body = Array.from({ length: 6 }, () => `## ${pick(3)}\n\n${pick(80)}\n`).join("\n");
    mkdirSync(join(root, name), { recursive: true });
    writeFileSync(
      join(root, name, "SKILL.md"),
      `---\nname: ${name}\ndescription: ${pick(25).replace(/[:#]/g, " ")}\n---\n\n# ${pick(4)}\n\n${body}`,
    );
  }
}
