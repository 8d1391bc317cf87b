/**
 * A SKILL.md's text as a reader sees it, for the page's search excerpts (made from it afterwards, so the
 * window around a match holds no markup): without Markdown's markup (heading and quote marks, list bullets,
 * table bars, code fence lines with their language, rules, backticks, emphasis, link and image syntax: their
 * text stays). Lines stay lines; the excerpt collapses them. The page shows it as text, never as HTML.
 *
 * Pure and linear: each expression reads a line once (a link's text and target stop at the next bracket or
 * parenthesis, underscore runs are judged by their neighbours), whatever the body holds.
 */
export function plainMarkdown(markdown: string): string {
  return markdown
    .split("\n")
    .filter(
      (line) => !/^\s*(```|~~~)/.test(line) && !/^\s*([-*_=])\s*(\1\s*){2,}$/.test(line) && !/^[\s|:-]+$/.test(line),
    )
    .map((line) =>
      line
        .replace(/^\s{0,3}#{1,6}\s+/, "")
        .replace(/^\s*(>\s?)+/, "")
        .replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?/, "")
        .replaceAll("|", " ")
        .replace(/!?\[([^[\]\n]*)\]\([^()\n]*\)/g, "$1")
        .replace(/[`*]+/g, "")
        // Emphasis marks, not the underscores inside a word (snake_case_names).
        .replace(/_+/g, (run, at: number, text: string) =>
          isWordChar(text[at - 1]) && isWordChar(text[at + run.length]) ? run : "",
        ),
    )
    .join("\n");
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && /[A-Za-z0-9]/.test(char);
}
