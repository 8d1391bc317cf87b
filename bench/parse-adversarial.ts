/**
 * make bench-parse: how long the parsers take on 1 MiB adversarial lines
 * (bench/fuzz/adversarial-text.ts), beside a floor measured in the same run:
 * a benign SKILL.md with a 1 MiB description through the same code. Linear
 * code stays within a small multiple of the floor; a quadratic regex is
 * thousands of times over it. Also the growth from 256 KiB to 1 MiB: about 4
 * when linear, 16 when quadratic. Exits 1 when a case is over
 * BUDGET_FACTOR × floor (and over 250 ms, so timer noise does not count) or
 * grows more than MAX_GROWTH times.
 */

import { tokenize } from "../src/search/keyword-matcher.ts";
import { acronyms } from "../src/search/text.ts";
import { parseAgentSkill } from "../src/skills/agent-skill.ts";
import { parseTreeNode } from "../src/skills/tree-node.ts";
import { type AdversarialSkill, adversarialSkills, benignSkill, MIB, skillFileOf } from "./fuzz/adversarial-text.ts";

const BUDGET_FACTOR = 20;
const MAX_GROWTH = 8;
const RUNS = 3;

function parseAll(c: AdversarialSkill): void {
  const parsed = parseAgentSkill(skillFileOf(c, "/bench"));
  parseTreeNode(`/bench/${c.name}.md`, c.text);
  const description = parsed.skill?.description ?? "";
  tokenize(description);
  acronyms(description);
}

/** Best of RUNS, in milliseconds. */
function time(c: AdversarialSkill): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    parseAll(c);
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

const floor = time(benignSkill(MIB));
const quarter = adversarialSkills(MIB / 4);
const rows: { case: string; ms: number; factor: number; growth: number; ok: boolean }[] = [];
adversarialSkills(MIB).forEach((c, i) => {
  const ms = time(c);
  const small = time(quarter[i] as AdversarialSkill);
  const factor = ms / Math.max(floor, 1);
  const growth = ms / Math.max(small, 1);
  rows.push({ case: c.name, ms, factor, growth, ok: ms < 250 || (factor <= BUDGET_FACTOR && growth <= MAX_GROWTH) });
});
process.stdout.write(
  `parse-adversarial: 1 MiB inputs, best of ${RUNS}; floor (benign SKILL.md, 1 MiB description) ${floor.toFixed(1)} ms\n`,
);
for (const r of rows)
  process.stdout.write(
    `  ${r.case.padEnd(26)} ${r.ms.toFixed(1).padStart(9)} ms  ${r.factor.toFixed(1).padStart(7)} × floor  growth ×${r.growth.toFixed(1).padStart(5)} (256 KiB → 1 MiB)  ${r.ok ? "ok" : "OVER BUDGET"}\n`,
  );
const over = rows.filter((r) => !r.ok).length;
process.stdout.write(
  `${rows.length - over} within budget (${BUDGET_FACTOR} × floor, growth ≤ ${MAX_GROWTH}), ${over} over\n`,
);
process.exit(over === 0 ? 0 : 1);
