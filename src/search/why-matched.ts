import { editDistance } from "../util/close-names.ts";
import type { RankedHit } from "./engine.ts";
import { META_FIELDS, metadata } from "./fields.ts";
import { SEARCH_OPTIONS } from "./index-settings.ts";
import { type TermSpec, termSpecs } from "./query-spec.ts";
import { acronyms, foldWidth, isCjkTerm, processTerms, queryTerms, splitWords } from "./text.ts";

/**
 * Why each of a query's hits matched, in a line an agent can judge it by: the query's words as typed, grouped by
 * where the skill has them ("name: pdf; description: invoices; text: tables", text being its headings and
 * body), and "similar in meaning" with the cosine similarity when embeddings found it. A word found only
 * by the engine's prefix or typo matching counts where that match is ("kuber" in a name holding
 * "kubernetes"). `fuzzy`: whether the engine matched typos (it does up to FUZZY_MAX_DOCUMENTS skills).
 * Undefined when nothing can be said (a tree node found by its keywords alone says so).
 */
export function whyMatched(query: string, fuzzy = true): (hit: RankedHit) => string | undefined {
  const typed = typedWords(query);
  return (hit) => explain(hit, typed, fuzzy);
}

/**
 * What a line reads, whatever the skill and query: the first WHY_TERMS_MAX matched words, in the first
 * WHY_FIELD_CHARS characters of each field (a description's limit is 1,024). A word matched only further
 * on is said to be in the text. Security: a query of hundreds of words over skills with huge fields
 * would otherwise compare every word with every other for each hit, seconds of CPU per search.
 */
const WHY_TERMS_MAX = 32;
const WHY_FIELD_CHARS = 4096;

function explain(hit: RankedHit, typed: ReadonlyMap<string, string>, fuzzy: boolean): string | undefined {
  const parts: string[] = [];
  if (hit.matched && hit.matched.length > 0) {
    const specs = termSpecs(hit.matched.slice(0, WHY_TERMS_MAX), SEARCH_OPTIONS).map((s) =>
      fuzzy ? s : { ...s, maxDistance: 0 },
    );
    const texts = metadata(hit.skill);
    const fields = META_FIELDS.map((f) => fieldText(foldWidth(texts[f].slice(0, WHY_FIELD_CHARS).toLowerCase())));
    const where = new Map<string, string[]>();
    for (const spec of specs) {
      const found = META_FIELDS.filter((_, i) => fieldHas(fields[i] as FieldText, spec));
      const word = typed.get(spec.term) ?? spec.term;
      for (const place of found.length > 0 ? found : ["text"]) {
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

/**
 * Whether a metadata field (lower-cased) holds a word the engine matches `spec` with: the same term, a longer one it
 * starts (prefix matching) or, with typo matching, one within its edits. Without typo matching only the
 * words that start with the term are read (a term is its word's stem, so a prefix of it but for "-ies" →
 * "y"): a search's ten hits never split their descriptions into words.
 */
function fieldHas(field: FieldText, spec: TermSpec): boolean {
  const { lower } = field;
  if (lower === "") return false;
  if (isCjkTerm(spec.term)) return lower.includes(spec.term);
  const matches = (t: string) => t === spec.term || (spec.prefix && t.startsWith(spec.term));
  if (spec.maxDistance > 0) {
    const terms = field.terms();
    if (terms.has(spec.term)) return true;
    for (const t of terms)
      if (matches(t) || editDistance(spec.term, t, spec.maxDistance) <= spec.maxDistance) return true;
    return false;
  }
  const start = spec.term.endsWith("y") ? spec.term.slice(0, -1) : spec.term;
  // Each word is read once, however many times the term is written in it: the field's length, not its square.
  let read = 0;
  for (let at = lower.indexOf(start); at !== -1; at = lower.indexOf(start, at + 1)) {
    if (at < read) continue;
    let from = at;
    while (from > read && inWord(lower, from - 1)) from--;
    let end = at + start.length;
    while (end < lower.length && inWord(lower, end)) end++;
    read = end;
    const word = lower.slice(from, end);
    // Inside a word only where CJK text splits it into terms (`日付をjsonに`): a word holding CJK text is
    // several terms (`pdfから` is `pdf` and `から`), as the index has it.
    if (from < at && !isCjkTerm(word)) continue;
    if (processTerms(word).some(matches)) return true;
  }
  return false;
}

/** A metadata field, lower-cased, and its distinct terms, split on first use (typo matching reads them all). */
interface FieldText {
  lower: string;
  terms: () => ReadonlySet<string>;
}

function fieldText(lower: string): FieldText {
  let terms: Set<string> | undefined;
  return { lower, terms: () => (terms ??= new Set(splitWords(lower).flatMap((w) => processTerms(w)))) };
}

/** What the tokenizer keeps inside a word (it splits on spaces, punctuation and symbols); ASCII from a table. */
const WORD_CHAR = /[^\n\r\p{Z}\p{P}\p{S}]/u;
const ASCII_WORD = Array.from({ length: 128 }, (_, c) => WORD_CHAR.test(String.fromCharCode(c)));
function inWord(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c < 128 ? (ASCII_WORD[c] as boolean) : WORD_CHAR.test(text[i] as string);
}

/** Each processed query term → the word the user typed for it (an acronym → its phrase), first one kept. */
function typedWords(query: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const word of splitWords(query)) for (const term of queryTerms(word)) if (!out.has(term)) out.set(term, word);
  for (const { acronym, words } of acronyms(query)) if (!out.has(acronym)) out.set(acronym, words.join(" "));
  return out;
}
