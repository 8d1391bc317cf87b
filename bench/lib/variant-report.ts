/**
 * One line per ranking variant for the tuning scripts: R@1 / R@3 / MRR on the 151 existing eval queries and
 * the 60 blind ones, then R@1 by query class for each set, and optionally the mean time per query.
 */
import { type Query, type Ranker, score } from "../eval.ts";

const CLASSES = ["exact name", "description paraphrase", "body-only detail", "two plausible skills", "typo"];
const fmt = (x: number) => x.toFixed(3);

/** The header line, after what `context` says of the run (skills, options). */
export function reportHeader(context: string): string {
  return `${context}; existing R@1 R@3 MRR | blind R@1 R@3 MRR | R@1 by class (${CLASSES.join(", ")}), existing | blind\n`;
}

/** A variant's line; with `timed`, ended by its mean time per query over both sets (a first pass, unscored). */
export async function reportLine(
  label: string,
  ranker: Ranker,
  sets: { existing: readonly Query[]; blind: readonly Query[] },
  timed = false,
): Promise<string> {
  let time = "";
  if (timed) {
    const all = [...sets.existing, ...sets.blind];
    const started = performance.now();
    for (const q of all) await ranker(q.query);
    time = ` | ${((performance.now() - started) / all.length).toFixed(1)} ms`;
  }
  const figures = async (list: readonly Query[]) => {
    const s = await score(ranker, list);
    return `${fmt(s.r1)} ${fmt(s.r3)} ${fmt(s.mrr)}`;
  };
  const byClass = async (list: readonly Query[]) => {
    const out: string[] = [];
    for (const c of CLASSES) {
      const of = list.filter((q) => q.class === c);
      out.push(of.length ? (await score(ranker, of)).r1.toFixed(2) : "  - ");
    }
    return out.join(" ");
  };
  const { existing, blind } = sets;
  return `${label.padEnd(44)} ${await figures(existing)} | ${await figures(blind)} | ${await byClass(existing)} | ${await byClass(blind)}${time}\n`;
}
