/* The relative links of a Markdown text: what a skill's files point a model to. */

/** A relative link or image target of a Markdown text, as the file it names, and its line (1-based). */
export interface MarkdownLink {
  /** The path the link names (linkTarget): no section or query, %-escapes decoded. */
  target: string;
  line: number;
}

/** A line that opens or closes a fenced code block: its fence (three or more backticks or tildes). */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/**
 * `](target` of an inline link or image, the target bare or in `<…>`. Linear: `<…>` holds no `<`, so a
 * failed try stops where the next one starts.
 */
const INLINE = /\]\(\s*(<[^<>]*>|[^\s)]+)/g;
/** A reference definition, `[id]: target` (not a footnote, `[^1]: text`). */
const DEFINITION = /^ {0,3}\[(?!\^)[^\]]+\]:\s*(<[^<>]*>|\S+)/;
/** A URL's scheme (`https:`, `mailto:`, `data:`): not a file of the skill. */
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * The relative links and images of `text` (inline `[x](path)`, `![x](path)` and `[id]: path` definitions),
 * in order: URLs with a scheme (`https:`, `mailto:`), anchors (`#part`), absolute paths and links in code
 * (fenced blocks, code spans) left out. Linear in the text's length. Pure.
 */
export function relativeLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  let fence: string | undefined;
  let line = 0;
  for (const raw of text.split("\n")) {
    line++;
    const opens = FENCE.exec(raw)?.[1];
    if (fence !== undefined) {
      // Closed by a fence of the same character, at least as long.
      if (opens !== undefined && opens[0] === fence[0] && opens.length >= fence.length) fence = undefined;
      continue;
    }
    if (opens !== undefined) {
      fence = opens;
      continue;
    }
    const plain = withoutCodeSpans(raw);
    const found = [DEFINITION.exec(plain)?.[1], ...[...plain.matchAll(INLINE)].map((m) => m[1])];
    for (const written of found) {
      const target = written === undefined ? undefined : relativeTarget(written);
      if (target !== undefined) links.push({ target, line });
    }
  }
  return links;
}

/** The file a link target names, or undefined when it names none of the skill's (a URL, an anchor, `/x`). */
function relativeTarget(written: string): string | undefined {
  const target = linkTarget(written);
  if (target === "" || SCHEME.test(target) || target.startsWith("/") || target.startsWith("\\")) return undefined;
  return target;
}

/**
 * `line` with the text of its code spans blanked (`` `[x](y)` `` is no link): a run of backticks opens a
 * span that the next run of the same length closes. Linear: each run's next of its length is found in
 * one pass from the end.
 */
function withoutCodeSpans(line: string): string {
  if (!line.includes("`")) return line;
  const runs = [...line.matchAll(/`+/g)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  const next: (number | undefined)[] = [];
  const lastOfLength = new Map<number, number>();
  for (let i = runs.length - 1; i >= 0; i--) {
    const run = runs[i] as { start: number; end: number };
    next[i] = lastOfLength.get(run.end - run.start);
    lastOfLength.set(run.end - run.start, i);
  }
  let out = "";
  let from = 0;
  for (let i = 0; i < runs.length; i++) {
    const close = next[i];
    if (close === undefined) continue;
    const open = runs[i] as { start: number };
    const closing = runs[close] as { end: number };
    out += line.slice(from, open.start);
    from = closing.end;
    i = close;
  }
  return out + line.slice(from);
}

/**
 * The file a Markdown link's target names, when the target was copied whole as a path: the part before a
 * section (`#auth`) or query (`?raw=1`), out of the `<…>` a target with spaces may be written in, its
 * %-escapes decoded (`my%20notes.md` is `my notes.md`). `path` itself when it holds none of these, or
 * when its escapes do not decode. The result is checked like any path a client sends. Pure.
 */
export function linkTarget(path: string): string {
  const unwrapped = /^<(.*)>$/s.exec(path)?.[1] ?? path;
  const target = unwrapped.split(/[?#]/, 1)[0] ?? unwrapped;
  try {
    return decodeURIComponent(target);
  } catch {
    return target;
  }
}
