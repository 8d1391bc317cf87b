import { trimChar } from "../util/trim-char.ts";
import { isCjkTerm } from "./text.ts";

/**
 * The deterministic keyword matcher of skill trees: tokenise a free-text
 * context, score a keyword list against it, then pick one match, report an
 * ambiguity, or report no match. Pure: no I/O, no clock.
 */

/** English and French stop words, plus the fragments elision and contractions leave (l', d', don't). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  [
    // English
    "a an the is are was were be been being am of to in for with on at by from as and or but not no nor if then else so than too very",
    "it its this that these those i me my we us our you your he him his she her they them their what which who whom whose how when where why",
    "do does did doing done have has had having can could should would will shall may might must into onto about over under up down out off",
    "some any all each every both more most other such only own same just also there here please",
    "s t d ll m re ve",
    // French
    "le la les l un une des de du d et ou en au aux à ce cet cette ces que qu qui quoi dont où dans par pour sur sous avec sans chez entre vers",
    "est sont être été avoir ai avons avez ont je j tu il elle on nous vous ils elles me m te se lui leur leurs mon ma mes ton ta tes son sa ses",
    "notre nos votre vos ne n pas plus moins mais donc car ni si y c ça cela ceci comme aussi très tout tous toute toutes même",
  ]
    .join(" ")
    .split(" "),
);

/** Below this length (in characters), a token or keyword only matches by equality. */
export const SHORT_TOKEN_LENGTH = 3;

/** Weight of `priority` in a score: a tie-breaker, never more. */
export const PRIORITY_WEIGHT = 0.001;

/** Float noise allowance when comparing scores to thresholds (0.6 - 0.5 is 0.0999…). */
const EPSILON = 1e-9;

/**
 * Lower-case, punctuation removed (hyphens kept), split on
 * whitespace, stop words (EN + FR) dropped, duplicates dropped, first
 * occurrence order kept. Punctuation becomes a space, so "ui/react" gives two
 * tokens and "l'authentification" gives "authentification".
 */
export function tokenize(text: string): string[] {
  const cleaned = text
    .normalize("NFC")
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\s-]+/gu, " ");
  const tokens: string[] = [];
  const seen = new Set<string>();
  for (const raw of cleaned.split(/\s+/)) {
    // Hyphens join words ("front-end"); alone or at an edge ("- item", "--flag") they are punctuation.
    const token = trimChar(raw, "-");
    if (token === "" || STOP_WORDS.has(token) || seen.has(token)) continue;
    seen.add(token);
    tokens.push(token);
  }
  return tokens;
}

/**
 * Whether one context token matches one keyword (both lower-case): equal, or
 * one contains the other. When either is shorter than 3 characters only
 * equality counts, so "go" does not match "golang" nor "js" "json" (the
 * documented examples and intent).
 */
export function keywordMatches(token: string, keyword: string): boolean {
  if (token === keyword) return true;
  if (token.length < SHORT_TOKEN_LENGTH || keyword.length < SHORT_TOKEN_LENGTH)
    return cjkWordIn(keyword, token) || cjkWordIn(token, keyword);
  return token.includes(keyword) || keyword.includes(token);
}

/**
 * Two CJK characters are a whole word (`請求`, `経理`), and a context written without spaces is one token
 * (`請求書を処理したい`): such a word counts where it stands inside the other.
 */
function cjkWordIn(word: string, text: string): boolean {
  return word.length >= 2 && word.length <= 4 && [...word].length === 2 && isCjkTerm(word) && text.includes(word);
}

/**
 * Matched keywords / total keywords + priority × 0.001.
 * `tokens` come from `tokenize`; keywords are compared lower-cased and
 * returned lower-cased in `matched`, in keyword order. No keywords → only the
 * priority part (never NaN).
 */
export function scoreKeywords(
  tokens: string[],
  keywords: readonly string[],
  priority: number,
): { score: number; matched: string[] } {
  const matched: string[] = [];
  for (const raw of keywords) {
    const keyword = raw.trim().toLowerCase();
    if (keyword !== "" && tokens.some((token) => keywordMatches(token, keyword))) matched.push(keyword);
  }
  const base = keywords.length === 0 ? 0 : matched.length / keywords.length;
  return { score: base + priority * PRIORITY_WEIGHT, matched };
}

/** matching.* of config.yaml (defaults: 0.2, 3, 0.1). */
export interface MatchingOptions {
  min_score: number;
  max_results: number;
  ambiguity_threshold: number;
}

export interface Scored<T> {
  item: T;
  score: number;
  matched: string[];
}

export type MatchOutcome<T> =
  | { kind: "no_match"; closest?: Scored<T> }
  | { kind: "match"; best: Scored<T> }
  | { kind: "ambiguous"; candidates: Scored<T>[] };

/**
 * Drop scores below `min_score`, sort descending (ties keep
 * the input order), then one match, or `ambiguous` with up to `max_results`
 * candidates when the top two are closer than `ambiguity_threshold`. A
 * candidate that matched no keyword never counts, whatever its priority.
 * `closest` (no_match only) is the best candidate below `min_score`.
 */
export function decideMatch<T>(scored: readonly Scored<T>[], options: MatchingOptions): MatchOutcome<T> {
  const matching = scored.filter((s) => s.matched.length > 0);
  const ranked = matching.filter((s) => s.score + EPSILON >= options.min_score).sort((a, b) => b.score - a.score);
  const [first, second] = ranked;
  if (!first) {
    const closest = [...matching].sort((a, b) => b.score - a.score)[0];
    return closest ? { kind: "no_match", closest } : { kind: "no_match" };
  }
  if (second && first.score - second.score < options.ambiguity_threshold - EPSILON) {
    return { kind: "ambiguous", candidates: ranked.slice(0, options.max_results) };
  }
  return { kind: "match", best: first };
}

/** Scores are shown with 4 decimals: enough for the 0.001 priority step. */
export function roundScore(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}
