/* What the parsers of both skill kinds read from a Markdown body (its length), and the search index its headings. */

const FENCE_OR_HEADING = /^(?:(```|~~~)[^\n]*|#+[ \t]*(.*))$/gm;

/**
 * Markdown headings outside code fences, from a body fed in chunks (the search index streams
 * bodies), the first `max` kept. Skills do not keep their headings (12.8 per skill,
 * 128,000 strings at 10,000 skills): the index reads them as it reads the body.
 */
export class HeadingLines {
  private readonly found: string[] = [];
  private fenced = false;
  /** The last line of what was pushed, while its end is not known. */
  private carry = "";

  constructor(private readonly max = Number.POSITIVE_INFINITY) {}

  /** Whether `max` headings are found (the rest of the body does not matter to them). */
  get full(): boolean {
    return this.found.length >= this.max;
  }

  push(chunk: string): void {
    if (this.full) return;
    const text = this.carry + chunk;
    const end = text.lastIndexOf("\n") + 1;
    this.carry = text.slice(end);
    if (end > 0) this.scan(text.slice(0, end));
  }

  /** The headings found, in order. */
  end(): string[] {
    if (this.carry && !this.full) this.scan(this.carry);
    this.carry = "";
    return this.found;
  }

  /** Whole lines only: a heading or fence line is never split between two scans. */
  private scan(lines: string): void {
    // Only lines that start a fence or a heading matter: match those instead of splitting every line.
    for (const m of lines.matchAll(FENCE_OR_HEADING)) {
      if (m[1]) this.fenced = !this.fenced;
      else if (!this.fenced) {
        const heading = (m[2] ?? "").trim();
        if (heading) this.found.push(heading);
        if (this.full) return;
      }
    }
  }
}

/** Markdown headings outside code fences, of a whole body. */
export function headingsOf(body: string): string[] {
  const headings = new HeadingLines();
  headings.push(body);
  return headings.end();
}

/** Lines in a text, counted without splitting it. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}
