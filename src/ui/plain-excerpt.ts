/** Longest excerpt made plain (search excerpts are a few hundred characters). */
const MAX_CHARS = 2000;

/**
 * A search excerpt (a window of a SKILL.md) as the text a reader sees: without Markdown's markup
 * (heading and quote marks, list bullets, table bars, code fences and backticks, emphasis, link and
 * image syntax: their text stays), on one line. The page shows it as text, never as HTML. Pure; every
 * expression reads a bounded line without backtracking over it.
 */
export function plainExcerpt(markdown: string): string {
  const lines = markdown
    .slice(0, MAX_CHARS)
    .split("\n")
    .filter(
      (line) => !/^\s*(```|~~~)/.test(line) && !/^\s*([-*_=])\s*(\1\s*){2,}$/.test(line) && !/^[\s|:-]+$/.test(line),
    )
    .map((line) =>
      line
        .replace(/^\s{0,3}#{1,6}\s+/, "")
        .replace(/^\s*(>\s?)+/, "")
        .replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?/, "")
        .replace(/\s*\|\s*/g, " "),
    );
  return lines
    .join(" ")
    .replace(/!?\[([^\]\n]*)\]\([^)\n]*\)/g, "$1")
    .replace(/`+/g, "")
    .replace(/\*+/g, "")
    .replace(/(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])/g, "")
    .replace(/\s+/g, " ")
    .trim();
}
