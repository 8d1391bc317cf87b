import { detach } from "../util/detach.ts";

/* What the parsers of both skill kinds read from a Markdown body: its headings and its length. */

/** Markdown headings outside code fences (for search). */
export function headingsOf(body: string): string[] {
  const out: string[] = [];
  let fenced = false;
  // Only lines that start a fence or a heading matter: match those instead of splitting every line.
  for (const m of body.matchAll(/^(?:(```|~~~)[^\n]*|#+[ \t]*(.*))$/gm)) {
    if (m[1]) fenced = !fenced;
    else if (!fenced) {
      const heading = (m[2] ?? "").trim();
      if (heading) out.push(detach(heading));
    }
  }
  return out;
}

/** Lines in a text, counted without splitting it. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}
