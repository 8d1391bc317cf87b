import { editDistance } from "../util/close-names.ts";
import type { RankedHit } from "./engine.ts";
import { fieldTerms } from "./field-terms.ts";
import { META_FIELDS, metadata } from "./fields.ts";
import { SEARCH_OPTIONS } from "./index-settings.ts";
import { termSpecs } from "./query-spec.ts";
import { acronyms, processTerm, splitWords } from "./text.ts";

/**
 * Why a search hit matched, in a line an agent can judge it by: the query's words as typed, grouped by
 * where the skill has them ("name: pdf; description: invoices; text: tables", text being its headings and
 * body), and "similar in meaning" with the cosine similarity when embeddings found it. A word found only
 * by the engine's prefix or typo matching counts where that match is ("kuber" in a name holding
 * "kubernetes"). Undefined when nothing can be said (a tree node found by its keywords alone says so).
 */
export function whyMatched(hit: RankedHit, query: string): string | undefined {
  const parts: string[] = [];
  if (hit.matched && hit.matched.length > 0) {
    const typed = typedWords(query);
    const fields = META_FIELDS.map((f) => [f, [...fieldTerms(metadata(hit.skill)[f]).counts.keys()]] as const);
    const where = new Map<string, string[]>();
    for (const spec of termSpecs(hit.matched, SEARCH_OPTIONS)) {
      const found = fields.filter(([, terms]) =>
        terms.some(
          (t) =>
            t === spec.term ||
            (spec.prefix && t.startsWith(spec.term)) ||
            (spec.maxDistance > 0 && editDistance(spec.term, t, spec.maxDistance) <= spec.maxDistance),
        ),
      );
      const word = typed.get(spec.term) ?? spec.term;
      for (const place of found.length > 0 ? found.map(([f]) => f) : ["text"]) {
        const words = where.get(place) ?? [];
        if (!words.includes(word)) words.push(word);
        where.set(place, words);
      }
    }
    for (const place of [...META_FIELDS, "text"]) {
      const words = where.get(place);
      if (words) parts.push(`${place}: ${words.join(", ")}`);
    }
  }
  if (hit.similarity !== undefined) parts.push(`similar in meaning (${hit.similarity.toFixed(2)})`);
  if (parts.length === 0 && hit.skill.kind === "tree-node") parts.push("tree keywords");
  return parts.length > 0 ? parts.join("; ") : undefined;
}

/** Each processed query term → the word the user typed for it (an acronym → its phrase), first one kept. */
function typedWords(query: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const word of splitWords(query)) {
    const term = processTerm(word);
    if (term && !out.has(term)) out.set(term, word);
  }
  for (const { acronym, words } of acronyms(query)) if (!out.has(acronym)) out.set(acronym, words.join(" "));
  return out;
}
