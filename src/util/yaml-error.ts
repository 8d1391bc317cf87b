import { yaml } from "./lazy-yaml.ts";

/**
 * A YAML parser's error as one sentence with its position in the file: `firstLine` is the file's line of
 * the text's first (2 for a SKILL.md's frontmatter, after its opening `---`). A quote or bracket left open
 * is placed where it opens: the parser reports where it ran out of text, the end of the frontmatter or
 * the file, lines after the mistake.
 */
export function yamlErrorAt(error: unknown, text: string, firstLine = 1): string {
  const first = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
  const { code, linePos } = error as { code?: string; linePos?: { line: number; col: number }[] };
  const what = first.replace(/( at line \d+, column \d+)?:?$/, "");
  const opened = code === "MISSING_CHAR" || code === "BAD_INDENT" ? openedAt(text) : undefined;
  const at = opened === undefined ? linePos?.[0] : lineAndColumn(text, opened);
  return at ? `${what} at line ${at.line + firstLine - 1}, column ${at.col}` : what;
}

/** Tokens the lexer emits that stand for no text (document start, scalar and forced flow end marks). */
const MARKS = new Set(["\u0002", "\u0018", "\u001f"]);

/**
 * Where the first quoted value or flow collection left open starts (an offset in `text`), from the YAML
 * lexer's tokens; undefined when none is. One pass over the tokens.
 */
function openedAt(text: string): number | undefined {
  let offset = 0;
  const brackets: number[] = [];
  for (const token of new (yaml().Lexer)().lex(text)) {
    if (MARKS.has(token)) {
      // The lexer ended a flow collection that never closed.
      if (token === "\u0018" && brackets.length > 0) return brackets[0];
      continue;
    }
    const head = token[0];
    if (head === "[" || head === "{") brackets.push(offset);
    else if ((head === "]" || head === "}") && brackets.length > 0) brackets.pop();
    else if ((head === '"' || head === "'") && !closedQuote(token)) return offset;
    offset += token.length;
  }
  return brackets[0];
}

/** Whether a quoted scalar's token ends with its closing quote (an escaped `\"` does not close one). */
function closedQuote(token: string): boolean {
  const quote = token[0] as string;
  const body = token.trimEnd();
  if (body.length < 2 || !body.endsWith(quote)) return false;
  if (quote === "'") return true;
  let slashes = 0;
  for (let i = body.length - 2; i > 0 && body[i] === "\\"; i--) slashes++;
  return slashes % 2 === 0;
}

/** The 1-based line and column of `offset` in `text`. */
function lineAndColumn(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: offset - start + 1 };
}
