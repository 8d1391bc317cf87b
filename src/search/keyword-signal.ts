import type { Catalog } from "../catalog/catalog.ts";
import type { Signal } from "./engine.ts";
import { scoreKeywords, tokenize } from "./keyword-matcher.ts";

/**
 * The skill-tree keyword matcher as a search signal: the share of a
 * tree node's keywords the query matches, 0..1. Skills without keywords give 0.
 */
export const keywordSignal: Signal = (queryText) => {
  const tokens = tokenize(queryText);
  return (skill) =>
    skill.keywords.length === 0 || tokens.length === 0
      ? 0
      : Math.min(1, scoreKeywords(tokens, skill.keywords, 0).score);
};

/** Per catalog snapshot (immutable): whether any skill has keywords for the keyword signal to match. */
const keyworded = new WeakMap<Catalog, boolean>();

/**
 * The keyword matcher when some skill has keywords (tree nodes); none otherwise, since it gives 0 to
 * every skill without keywords and its loop over the catalog cost 1-3 ms a search at 10,000 skills.
 */
export function defaultSignals(catalog: Catalog): readonly Signal[] {
  let any = keyworded.get(catalog);
  if (any === undefined) {
    any = catalog.skills.some((s) => s.keywords.length > 0);
    keyworded.set(catalog, any);
  }
  return any ? [keywordSignal] : [];
}
