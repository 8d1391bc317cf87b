import { type FieldTerms, TermCounter } from "./field-terms.ts";
import { LEAD_CHARS, LEAD_WORD_END } from "./scoring.ts";

/**
 * A body fed in chunks, split into its two scoring zones (scoring.ts) as it streams: the lead is
 * the first LEAD_CHARS characters, moved on to the next whitespace when one comes within
 * LEAD_WORD_END characters (so no word is split between the zones), else cut at LEAD_CHARS; the
 * rest is everything after. At most LEAD_WORD_END characters are held back while the cut is
 * undecided, so a long body is never held whole.
 */
export class BodyZones {
  private readonly lead = new TermCounter();
  private readonly rest = new TermCounter();
  private taken = 0;
  /** Characters from LEAD_CHARS on, while the lead's end is not yet known. */
  private held = "";
  private decided = false;

  /** At most `maxChars` characters are taken (the rest is ignored). */
  constructor(private readonly maxChars = Number.POSITIVE_INFINITY) {}

  /** False once `maxChars` have been taken: the caller can stop reading. */
  push(chunk: string): boolean {
    if (this.taken >= this.maxChars || chunk.length === 0) return this.taken < this.maxChars;
    let text = this.taken + chunk.length > this.maxChars ? chunk.slice(0, this.maxChars - this.taken) : chunk;
    const before = this.taken;
    this.taken += text.length;
    if (this.decided) {
      this.rest.push(text);
      return this.taken < this.maxChars;
    }
    if (before < LEAD_CHARS) {
      this.lead.push(text.slice(0, LEAD_CHARS - before));
      text = text.slice(LEAD_CHARS - before);
    }
    if (text) this.cut(this.held + text, false);
    return this.taken < this.maxChars;
  }

  /** Each zone's terms. */
  end(): { lead: FieldTerms; rest: FieldTerms } {
    if (!this.decided && this.held) this.cut(this.held, true);
    return { lead: this.lead.end(), rest: this.rest.end() };
  }

  /** `pending` starts at LEAD_CHARS: end the lead at its first whitespace, if there is one in reach. */
  private cut(pending: string, last: boolean): void {
    const space = pending.slice(0, LEAD_WORD_END).search(/\s/);
    if (space < 0 && pending.length < LEAD_WORD_END && !last) {
      this.held = pending;
      return;
    }
    const at = Math.max(space, 0);
    this.lead.push(pending.slice(0, at));
    this.rest.push(pending.slice(at));
    this.held = "";
    this.decided = true;
  }
}
