import { detach } from "../util/detach.ts";

/**
 * Text processing shared by indexing and querying: normalisation, stop words
 * and a light English stemmer, so that "extracting tables from PDFs" meets
 * "pdf table extraction".
 */

/**
 * Longest query a search tool takes (characters): a task told in a few sentences fits. Security: a
 * search runs on the server's one thread and its cost grows with the query (a word's fuzzy match takes
 * memory in the square of its length; skills.search looks for every token in every skill), so a
 * megabyte of query held every other client's requests and could exhaust the server's memory.
 */
export const MAX_QUERY_CHARS = 2000;

/** Trim and collapse whitespace. */
export function normaliseQuery(query: string): string {
  return query.replace(/\s+/g, " ").trim();
}

/** Words that carry no topic in a request to an agent. */
export const STOP_WORDS = new Set(
  (
    "a an the and or but if then else of to in on at by for with from into onto over under about as is are was were be been being " +
    "it its this that these those there here i me my mine we us our ours you your yours he she they them their " +
    "do does did doing done have has had having can could would should will shall may might must " +
    "what which who whom whose when where why how all any each some such no not only own same so than too very just " +
    "please want wants need needs help like get got let lets make sure also using use used via"
  ).split(" "),
);

/**
 * A light suffix stripper (not a full Porter stemmer): plural, -ing, -ed,
 * doubled consonants and a final e. Applied to both documents and queries,
 * so only consistency matters, not linguistic accuracy.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith("ing") && w.length - 3 >= 3) w = w.slice(0, -3);
  else if (w.endsWith("ed") && w.length - 2 >= 3) w = w.slice(0, -2);
  if (w.length > 3 && w[w.length - 1] === w[w.length - 2] && !/[aeioulsz]/.test(w[w.length - 1] as string))
    w = w.slice(0, -1);
  // A final e goes from four letters on, as "-ing" and "-ed" take it: "code" meets "coding", "type" "typing"
  // (kept on four-letter words, "coding" and "code" were two terms).
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  return w;
}

/**
 * Han, Hiragana, Katakana (with its long-vowel mark) and Hangul: scripts written without spaces between
 * words, so one "word" of the tokenizer is a whole phrase (`日本語のPDFから請求書を抽出`).
 */
const CJK_CHAR = String.raw`[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc]`;
const CJK_RUN = new RegExp(`(${CJK_CHAR}+)`, "u");
const CJK_LAST = new RegExp(`${CJK_CHAR}$`, "u");

/**
 * The terms of one token: the processed word (processTerm), or for a token holding CJK text its
 * runs of other scripts processed as words and each CJK run as its overlapping pairs of characters
 * (`請求書` → `請求`, `求書`), as search engines index such text without a dictionary: a query in
 * other words of the same phrase still shares most pairs with it. Index and queries both use it;
 * `indexed`, the index's reading, adds each character of a longer run on its own (`請`, `求`, `書`), so
 * that a query of one character (`图`, Korean `책`) finds the words it is part of; a query's longer run
 * stays pairs, which single characters of other words would only blur.
 */
export function processTerms(token: string, indexed = false): readonly string[] {
  return termsOf(token, indexed, true);
}

/**
 * A client's word (a query's) as processTerms makes it, its terms not remembered: the memo is for the
 * words of skills, which repeat; a client can make up any number of words, and each one kept would
 * hold the server's memory (up to PROCESSED_CACHE_MAX words of up to MAX_QUERY_CHARS characters each).
 */
export function queryTerms(token: string): readonly string[] {
  return termsOf(token, false, false);
}

function termsOf(token: string, indexed: boolean, remember: boolean): readonly string[] {
  if (!isCjkTerm(token)) {
    const single = processedTerm(token, remember);
    return single === null ? NO_TERMS : [single];
  }
  const out: string[] = [];
  for (const part of foldWidth(token.toLowerCase()).split(CJK_RUN)) {
    if (part === "") continue;
    if (!CJK_RUN.test(part)) {
      const term = processedTerm(part, remember);
      if (term !== null) out.push(term);
    } else {
      // Characters, not UTF-16 units: Han beyond the first plane (`𠮷`) takes two units.
      const chars = part.length === 1 ? [part] : Array.from(part);
      if (chars.length === 1) out.push(part);
      else {
        for (let i = 0; i + 1 < chars.length; i++) out.push(`${chars[i]}${chars[i + 1]}`);
        if (indexed) out.push(...chars);
      }
    }
  }
  return out;
}

/**
 * `text` with full-width Latin letters, digits and signs (`ＰＤＦ`, `２０２４`, which Japanese and Chinese
 * input methods type) as their ASCII ones, so that they are the words `PDF` and `2024`. One unit for one:
 * positions in the text stay positions in the folded text (excerpts, why a hit matched). Pure.
 */
export function foldWidth(text: string): string {
  if (!FULL_WIDTH.test(text)) return text;
  return text.replace(FULL_WIDTHS, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
}

const FULL_WIDTH = /[\uff01-\uff5e]/;
const FULL_WIDTHS = /[\uff01-\uff5e]/g;

const NO_TERMS: readonly string[] = [];

/** Whether a word or term holds CJK text (a term then is a pair of characters, found anywhere in a word). */
export function isCjkTerm(term: string): boolean {
  return mayBeCjk(term) && CJK_RUN.test(term);
}

/** Whether `text` ends with a CJK character: a word of other letters starts right after one (`日付をjson`), as processTerms splits it. */
export function endsWithCjk(text: string): boolean {
  return mayBeCjk(text) && CJK_LAST.test(text);
}

/** Whether `term` has a character at or above Hangul Jamo (U+1100): most terms are ASCII, and a loop is cheaper than the regular expression. */
function mayBeCjk(term: string): boolean {
  for (let i = 0; i < term.length; i++) if (term.charCodeAt(i) >= 0x1100) return true;
  return false;
}

const processed = new Map<string, string | null>();
const PROCESSED_CACHE_MAX = 200_000;

/**
 * MiniSearch term processing: lower-case, drop stop words, stem. Returns null
 * to drop a term. Memoised: indexing meets the same words over and over.
 */
export function processTerm(term: string): string | null {
  return processedTerm(term, true);
}

/** processTerm; `remember` false (a client's words, queryTerms) reads the memo but adds nothing to it. */
function processedTerm(term: string, remember: boolean): string | null {
  let result = processed.get(term);
  if (result === undefined) {
    if (!remember) return processFresh(term);
    // Terms are slices of whole skill bodies: keep copies, or the index pins every body it has seen.
    const own = detach(term);
    const value = processFresh(own);
    result = value === null ? null : detach(value);
    if (processed.size >= PROCESSED_CACHE_MAX) processed.clear();
    processed.set(own, result);
  }
  return result;
}

/**
 * Empty processTerm's memo: after indexing it holds up to PROCESSED_CACHE_MAX words of skill bodies
 * (measured: ~15 MB of live heap at 10,000 skills) that queries seldom meet again.
 */
export function forgetProcessedTerms(): void {
  processed.clear();
}

/** Words processTerm's memo holds now. */
export function processedTermCount(): number {
  return processed.size;
}

function processFresh(term: string): string | null {
  const lower = foldWidth(term.toLowerCase());
  // Single letters are noise (the "s" of "month's"); single digits are not.
  if (lower.length === 0 || (lower.length === 1 && !/\d/.test(lower)) || STOP_WORDS.has(lower)) return null;
  return stem(lower);
}

/** Split like MiniSearch's default tokenizer: whitespace and punctuation (hyphens and underscores included). */
export function splitWords(text: string): string[] {
  return text.split(/[\n\r\p{Z}\p{P}\p{S}]+/u).filter(Boolean);
}

/**
 * Initials of capitalised multi-word names, so "You Need A Budget" also
 * searches "ynab" and "Amazon Web Services" "aws". Three to six words.
 */
export function acronyms(text: string): { acronym: string; words: string[] }[] {
  const out: { acronym: string; words: string[] }[] = [];
  for (const match of text.matchAll(/\b(?:[A-Z][\p{L}\p{N}]*[\s-]+){2,5}[A-Z][\p{L}\p{N}]*\b/gu)) {
    const words = match[0].split(/[\s-]+/);
    const acronym = words
      .map((w) => w[0])
      .join("")
      .toLowerCase();
    if (acronym.length >= 3) out.push({ acronym, words });
  }
  return out;
}
