import MiniSearch from "minisearch";
import { processTerms } from "./text.ts";

/**
 * A field's text → processed term frequencies and MiniSearch's field length (distinct raw
 * tokens), fed in chunks so that a long SKILL.md body is never held whole: a chunk is
 * tokenised up to its last separator and the unfinished word carried to the next, which gives the
 * same tokens as MiniSearch's tokenizer over the whole text.
 */

const tokenize = MiniSearch.getDefault("tokenize") as (text: string) => string[];
/** MiniSearch's SPACE_OR_PUNCTUATION, one character at a time (symbols such as a backtick are not separators: "`python" is one token). */
const SEPARATOR = /[\n\r\p{Z}\p{P}]/u;

export interface FieldTerms {
  counts: Map<string, number>;
  /** Distinct raw tokens, as MiniSearch counts a field's length. */
  length: number;
}

/** A whole short field at once (metadata). */
export function fieldTerms(text: string): FieldTerms {
  const tokens = tokenize(text);
  const counts = new Map<string, number>();
  for (const token of tokens)
    for (const term of processTerms(token, true)) counts.set(term, (counts.get(term) ?? 0) + 1);
  return { counts, length: new Set(tokens).size };
}

/** Chunks in, FieldTerms out; at most `maxChars` characters are taken (the rest is ignored). */
export class TermCounter {
  private readonly counts = new Map<string, number>();
  private readonly distinct = new Set<string>();
  private carry = "";
  private taken = 0;
  private started = false;
  /** Whether the text so far starts or ends with a separator (MiniSearch's split then yields ""). */
  private edge = false;
  private lastChar = "";

  constructor(private readonly maxChars = Number.POSITIVE_INFINITY) {}

  /** False once `maxChars` have been taken: the caller can stop reading. */
  push(chunk: string): boolean {
    if (this.taken >= this.maxChars || chunk.length === 0) return this.taken < this.maxChars;
    const text = this.taken + chunk.length > this.maxChars ? chunk.slice(0, this.maxChars - this.taken) : chunk;
    this.taken += text.length;
    if (!this.started) {
      this.started = true;
      this.edge = SEPARATOR.test(text[0] as string);
    }
    this.lastChar = text[text.length - 1] as string;
    const all = this.carry + text;
    let cut = all.length;
    while (cut > 0 && !SEPARATOR.test(all[cut - 1] as string)) cut--;
    this.carry = all.slice(cut);
    if (cut > 0) this.count(all.slice(0, cut));
    return this.taken < this.maxChars;
  }

  end(): FieldTerms {
    if (this.carry) this.count(this.carry);
    this.carry = "";
    // MiniSearch tokenises the whole text: "" is one of its tokens when the text is empty or starts or ends with a separator.
    if (!this.started || this.edge || SEPARATOR.test(this.lastChar)) this.distinct.add("");
    return { counts: this.counts, length: this.distinct.size };
  }

  private count(text: string): void {
    for (const token of tokenize(text)) {
      if (token === "") continue;
      this.distinct.add(token);
      for (const term of processTerms(token, true)) this.counts.set(term, (this.counts.get(term) ?? 0) + 1);
    }
  }
}
