/**
 * The rule a blind paraphrase query keeps: none of its words reaches its target skill's name or
 * description the way the search engine would reach them. Query and target are read with the
 * engine's own tokeniser, stop words and stemmer (FullTextIndex.queryTerms, fieldTerms), so "coding"
 * and "code" are one word and "the" is no word at all; a query word then leaks when it equals a name or
 * description term, when the engine's prefix matching would expand it to one ("kuber" → "kubernetes"),
 * or when its fuzzy matching would (one or two edits, by the engine's own rule for the word's length).
 * The name and description of every copy of the target count (a skill shadowed in another collection
 * too), and of every skill a query accepts.
 */

import { fieldTerms } from "../../src/search/field-terms.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import { SEARCH_OPTIONS } from "../../src/search/index-settings.ts";
import { termSpecs } from "../../src/search/query-spec.ts";
import { acronyms } from "../../src/search/text.ts";
import { editDistance } from "../../src/util/close-names.ts";

/** What a query must not reach: a skill's name (as it is searched) and description. */
export interface Target {
  name: string;
  description: string;
}

/** One way a query word reaches a target's name or description. */
export interface Leak {
  word: string;
  term: string;
  how: "same term" | "prefix" | "fuzzy";
  field: "name" | "description";
  skill: string;
}

/** The query's processed terms, with the initials of its capitalised phrases (as the engine searches). */
export function queryWords(query: string): string[] {
  return FullTextIndex.queryTerms([query, ...acronyms(query).map((a) => a.acronym)].join(" "));
}

/** Every way `query` reaches one of `targets`' names or descriptions; empty when it keeps the rule. */
export function leaks(query: string, targets: readonly Target[]): Leak[] {
  const out: Leak[] = [];
  const specs = termSpecs(queryWords(query), SEARCH_OPTIONS);
  for (const target of targets)
    for (const field of ["name", "description"] as const) {
      const terms = [...fieldTerms(target[field]).counts.keys()];
      for (const spec of specs)
        for (const term of terms) {
          const how =
            term === spec.term
              ? "same term"
              : spec.prefix && term.startsWith(spec.term)
                ? "prefix"
                : spec.maxDistance > 0 && editDistance(spec.term, term, spec.maxDistance) <= spec.maxDistance
                  ? "fuzzy"
                  : undefined;
          if (how) out.push({ word: spec.term, term, how, field, skill: target.name });
        }
    }
  return out;
}

/** One line per leak, for a failing check's message. */
export function describeLeaks(query: string, found: readonly Leak[]): string[] {
  return found.map((l) => `"${query}": "${l.word}" reaches ${l.skill}'s ${l.field} term "${l.term}" (${l.how})`);
}
