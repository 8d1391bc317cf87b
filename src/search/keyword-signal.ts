import type { Signal } from "./engine.ts";
import { scoreKeywords, tokenize } from "./keyword-matcher.ts";

/**
 * Seed 003's keyword matcher as a search signal (DESIGN §7.2): the share of a
 * tree node's keywords the query matches, 0..1. Skills without keywords give 0.
 */
export const keywordSignal: Signal = (queryText) => {
  const tokens = tokenize(queryText);
  return (skill) =>
    skill.keywords.length === 0 || tokens.length === 0
      ? 0
      : Math.min(1, scoreKeywords(tokens, skill.keywords, 0).score);
};
