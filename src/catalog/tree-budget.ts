import type { ContentSection } from "./tree-content.ts";

/**
 * Aggregated content over 8,000 estimated tokens is truncated,
 * with a warning. Tokens are estimated as characters / 4 (rounded up), the
 * usual rule of thumb for English text and Markdown; no tokenizer is shipped.
 */
export const CHARS_PER_TOKEN = 4;

/** Estimated tokens of a text: ceil(characters / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export interface BudgetCut {
  /** The file (relative to its source) whose section was shortened or dropped. */
  rel: string;
  /** Characters of its body kept (0: the section was left out). */
  kept: number;
  /** Characters of its body before the cut. */
  total: number;
}

/**
 * Fit sections (most general first, the node itself last) into `maxChars` of
 * bodies. The node's own section is served first, then its ancestors from the
 * nearest to `_root`: the most specific rules are the ones the model asked for,
 * and `_root` is the most generic. A section that does not fit whole is cut
 * at a line end with a marker line (counted in the budget); one that gets
 * nothing is dropped. `overhead` is what rendering adds around the bodies
 * (headers, blank lines), taken from the budget first. Pure; `maxChars` 0 or
 * less means no limit.
 */
export function fitSections(
  sections: readonly ContentSection[],
  maxChars: number,
  overhead = 0,
): { sections: ContentSection[]; cuts: BudgetCut[] } {
  const total = sections.reduce((n, s) => n + s.body.length, 0);
  if (maxChars <= 0 || total + overhead <= maxChars) return { sections: [...sections], cuts: [] };
  let left = maxChars - overhead;
  const kept = new Array<ContentSection | undefined>(sections.length);
  const cuts: BudgetCut[] = [];
  for (let i = sections.length - 1; i >= 0; i--) {
    const section = sections[i] as ContentSection;
    if (section.body.length <= left) {
      kept[i] = section;
      left -= section.body.length;
      continue;
    }
    const marker = (cut: number) =>
      `\n\n[… ${cut} characters of ${section.rel} cut: the content is over the size limit …]`;
    // The marker line counts against the budget too.
    const body = cutAtLine(section.body, left - marker(section.body.length).length);
    cuts.push({ rel: section.rel, kept: body.length, total: section.body.length });
    if (body.length > 0) {
      const shown = `${body}${marker(section.body.length - body.length)}`;
      kept[i] = { ...section, body: shown };
      left -= shown.length;
    }
  }
  return { sections: kept.filter((s): s is ContentSection => s !== undefined), cuts: cuts.reverse() };
}

/** The longest prefix of `text` within `max` characters that ends at a line end (or the hard cut when no line end is near). */
function cutAtLine(text: string, max: number): string {
  if (max <= 0) return "";
  const prefix = text.slice(0, max);
  const lineEnd = prefix.lastIndexOf("\n");
  // A line end in the last quarter keeps whole lines; otherwise a very long line is cut where the budget ends.
  return (lineEnd >= max * 0.75 ? prefix.slice(0, lineEnd) : prefix).trimEnd();
}
