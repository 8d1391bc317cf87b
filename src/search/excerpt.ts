import { endsWithCjk, foldWidth, isCjkTerm, processTerm } from "./text.ts";

/** Characters in an excerpt (about 160, as skills.search promises). */
export const EXCERPT_CHARS = 160;

/**
 * About 160 characters of `text` around its best match: the window holding
 * the most distinct query terms (the earliest such window). The start of the
 * text when nothing matches. Pure.
 */
export function excerptAround(text: string, terms: readonly string[], size = EXCERPT_CHARS): string {
  return matchedExcerpt(text, terms, size) ?? start(text.replace(/\s+/g, " ").trim(), size);
}

/**
 * `text.replace(/\s+/g, " ")`, touching only the runs that are not already one plain space
 * (measured 39 against 51 µs over 10,000 characters of a SKILL.md, half of an excerpt's time).
 */
export function collapseSpaces(text: string): string {
  return text.replace(/[^\S ]\s*| \s+/g, " ");
}

function start(flat: string, size: number): string {
  return flat.length <= size ? flat : `${flat.slice(0, size - 1).replace(/\s+\S*$/, "")}…`;
}

/**
 * Characters of a body an excerpt looks at: skills.search's excerpt is around the first match, and a match
 * further in rarely makes a better one (at 20,000, excerpts took as long as the search itself
 * at 10,000 skills, the long bodies search favours costing 160–190 µs each).
 */
export const EXCERPT_SCAN_CHARS = 8_000;

/**
 * Like excerptAround, but undefined when no word of `text` matches. Looks at the first EXCERPT_SCAN_CHARS
 * only. Matches and the window are found in the text as it is; only the part around the window is
 * collapsed (collapsing 8,000 characters per hit was 40 % of an excerpt's time).
 */
export function matchedExcerpt(text: string, terms: readonly string[], size = EXCERPT_CHARS): string | undefined {
  const raw = text.slice(0, EXCERPT_SCAN_CHARS);
  const hits = matches(raw, [...new Set(terms)]);
  if (hits.length === 0) return undefined;
  return cutCollapsedAround(raw, bestWindow(hits, size * 0.8), size);
}

/**
 * `cutAround(collapseSpaces(raw).trim(), …)` for a window starting at `at` in `raw` (a match, so not
 * whitespace), collapsing only the part of `raw` around it: more than `size` collapsed characters on
 * each side, or up to the text's end, which is all cutAround looks at (the same cut, character for
 * character, but for a word longer than that part).
 */
function cutCollapsedAround(raw: string, at: number, size: number): string {
  for (let reach = 2 * size; ; reach *= 2) {
    const from = Math.max(0, at - reach);
    const to = Math.min(raw.length, at + reach);
    let before = collapseSpaces(raw.slice(from, at));
    let after = collapseSpaces(raw.slice(at, to));
    if (from === 0) before = before.trimStart();
    if (to === raw.length) after = after.trimEnd();
    if ((from > 0 && before.length <= size) || (to < raw.length && after.length <= size)) continue;
    const flat = before + after;
    return flat.length <= size ? flat : cutAround(flat, before.length, size);
  }
}

/** `size` characters of `flat` around a window starting at `windowStart`, cut at word boundaries, "…" where cut. */
export function cutAround(flat: string, windowStart: number, size: number): string {
  let start = Math.max(0, windowStart - Math.floor(size / 5));
  let end = Math.min(flat.length, start + size);
  start = Math.max(0, end - size);
  // Cut at word boundaries, and say where text was cut.
  if (start > 0) start = flat.indexOf(" ", start) + 1 || start;
  if (end < flat.length) end = flat.lastIndexOf(" ", end) > start ? flat.lastIndexOf(" ", end) : end;
  return `${start > 0 ? "…" : ""}${flat.slice(start, end)}${end < flat.length ? "…" : ""}`;
}

/**
 * Matches in order of position (ties in the order of `terms`), each packed in one number as
 * `index * terms.length + term`, sorted as numbers (with an object per match and a Set per
 * window, an excerpt of a long body took 65 µs, 45 µs without). `terms` are distinct.
 */
class Matches {
  constructor(
    private readonly packed: Float64Array,
    /** How many distinct terms were looked for. */
    readonly terms: number,
  ) {}

  get length(): number {
    return this.packed.length;
  }

  index(i: number): number {
    return Math.floor((this.packed[i] as number) / this.terms);
  }

  term(i: number): number {
    return (this.packed[i] as number) % this.terms;
  }
}

/**
 * Where the window of `span` characters holding the most distinct terms starts (the earliest such
 * window starts at a match), read in one pass: the window's end only moves forward as its start does.
 */
function bestWindow(hits: Matches, span: number): number {
  let at = hits.index(0);
  if (!(span > 0)) return at;
  // Matches of each term in the window.
  const inWindow = new Int32Array(hits.terms);
  let distinct = 0;
  let best = 0;
  let end = 0;
  for (let i = 0; i < hits.length; i++) {
    const from = hits.index(i);
    for (; end < hits.length && hits.index(end) - from < span; end++) {
      const term = hits.term(end);
      if (inWindow[term] === 0) distinct++;
      inWindow[term] = (inWindow[term] as number) + 1;
    }
    if (distinct > best) {
      best = distinct;
      at = from;
    }
    // The match at `from` leaves the window (span > 0: it was in it).
    const term = hits.term(i);
    inWindow[term] = (inWindow[term] as number) - 1;
    if (inWindow[term] === 0) distinct--;
  }
  return at;
}

/** Words of `text` whose processed form matches a query term (prefix either way). */
function matches(text: string, terms: readonly string[]): Matches {
  if (terms.length === 0) return new Matches(new Float64Array(0), 0);
  const packed = wordStarts(text, terms);
  return new Matches(
    Float64Array.from(packed.length > 0 ? packed : processedMatches(text, terms)).sort(),
    terms.length,
  );
}

/**
 * Fast path: stems are usually prefixes of the words they came from
 * ("invoic" of "invoices"), so find them with indexOf at word starts.
 */
function wordStarts(text: string, terms: readonly string[]): number[] {
  const lower = foldWidth(text.toLowerCase());
  const out: number[] = [];
  // Lower-casing changed a length ("İ" → "i̇"): positions in `lower` are not positions in `text`.
  if (lower.length !== text.length) return out;
  for (let t = 0; t < terms.length; t++) {
    const term = terms[t] as string;
    const anywhere = isCjkTerm(term);
    for (let at = lower.indexOf(term); at !== -1; at = lower.indexOf(term, at + 1))
      if (
        anywhere ||
        at === 0 ||
        !isWordChar(lower.charCodeAt(at - 1), lower[at - 1] as string) ||
        endsWithCjk(lower.slice(Math.max(0, at - 2), at))
      )
        out.push(at * terms.length + t);
  }
  return out;
}

/** A letter or digit (`char` is the character at `code`; ASCII is decided without a regular expression). */
function isWordChar(code: number, char: string): boolean {
  if (code < 128) return (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
  return /[\p{L}\p{N}]/u.test(char);
}

/** Slow path: every word through the same processing as the index (stems that are not prefixes). */
function processedMatches(text: string, terms: readonly string[]): number[] {
  const out: number[] = [];
  const word = /[\p{L}\p{N}]+/gu;
  for (let m = word.exec(text); m; m = word.exec(text)) {
    const processed = processTerm(m[0]);
    const term = processed
      ? terms.findIndex((t) => processed === t || processed.startsWith(t) || t.startsWith(processed))
      : -1;
    if (term !== -1) out.push(m.index * terms.length + term);
  }
  return out;
}

/**
 * skills.search's excerpt: ~160 characters around the first occurrence of a
 * literal (lower-cased) token.
 */
export function excerptAtToken(text: string, tokens: readonly string[], size = EXCERPT_CHARS): string {
  const lower = text.toLowerCase();
  const positions = tokens.map((t) => lower.indexOf(t)).filter((p) => p >= 0);
  const at = positions.length > 0 ? Math.min(...positions) : 0;
  const start = Math.max(0, Math.min(at - Math.floor(size / 3), text.length - size));
  const end = Math.min(text.length, start + size);
  return `${start > 0 ? "…" : ""}${text.slice(start, end).replace(/\s+/g, " ").trim()}${end < text.length ? "…" : ""}`;
}
