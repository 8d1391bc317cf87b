import { type Diagnostic, diagnostic } from "../util/diagnostic.ts";

/**
 * Split a Markdown file into YAML frontmatter and body. The frontmatter ends at
 * the *first* closing `---` line: bodies often contain more `---` lines
 * (horizontal rules), so splitting the whole file on `---` is wrong.
 */
export type Split =
  | { kind: "ok"; frontmatter: string; body: string }
  | { kind: "none"; body: string }
  | { kind: "unclosed"; body: string };

const BOM = "\uFEFF";

export function stripBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(1) : text;
}

export function splitFrontmatter(input: string): Split {
  const bare = stripBom(input);
  // Most files have no carriage return: a search for one is faster than a replace that finds none.
  const text = bare.includes("\r") ? bare.replace(/\r\n?/g, "\n") : bare;
  const firstEnd = text.indexOf("\n");
  const firstLine = firstEnd === -1 ? text : text.slice(0, firstEnd);
  if (firstLine.trimEnd() !== "---") return { kind: "none", body: text };
  // Only lines starting with "---" can close it: found with indexOf, not line by line (the
  // loop over every frontmatter line was most of a split, 4 of 6 µs).
  for (let at = firstEnd + 1; firstEnd !== -1; ) {
    if (!text.startsWith("---", at)) {
      const next = text.indexOf("\n---", at);
      if (next === -1) break;
      at = next + 1;
    }
    const end = text.indexOf("\n", at);
    const line = end === -1 ? text.slice(at) : text.slice(at, end);
    if (line.trimEnd() === "---") {
      const frontmatter = text.slice(firstEnd + 1, at);
      const body = end === -1 ? "" : text.slice(end + 1);
      return { kind: "ok", frontmatter, body: withoutLeadingNewlines(body) };
    }
    if (end === -1) break;
    at = end + 1;
  }
  return { kind: "unclosed", body: text };
}

/** `text.replace(/^\n+/, "")` without the expression (the replace was 9 of a split's 11 µs on a search hit's SKILL.md). */
function withoutLeadingNewlines(text: string): string {
  let at = 0;
  while (text.charCodeAt(at) === 10) at++;
  return at === 0 ? text : text.slice(at);
}

/** The frontmatter a skill was parsed from (see frontmatterJson). */
export function frontmatterOf(skill: { frontmatterJson: string }): Record<string, unknown> {
  return JSON.parse(skill.frontmatterJson) as Record<string, unknown>;
}

/**
 * A parsed frontmatter as kept (frontmatterJson). YAML aliases may make a loop (`a: &x {self: *x}`), which
 * JSON cannot hold: a value that contains itself is kept as the text "[circular alias]" at the loop.
 */
export function frontmatterText(frontmatter: Record<string, unknown>): string {
  try {
    return JSON.stringify(frontmatter);
  } catch {
    try {
      return JSON.stringify(acyclic(frontmatter, []));
    } catch {
      // Nothing else JSON cannot hold comes out of the YAML parser; should it, the skill is still served.
      return "{}";
    }
  }
}

function acyclic(value: unknown, ancestors: object[]): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (ancestors.includes(value)) return "[circular alias]";
  ancestors.push(value);
  const copy = Array.isArray(value)
    ? value.map((v) => acyclic(v, ancestors))
    : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, acyclic(v, ancestors)]));
  ancestors.pop();
  return copy;
}

/** A frontmatter value as text: a string, or a number or boolean written out; undefined for anything else. */
export function scalarText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/**
 * What is wrong with a frontmatter's `description`, as the start of a sentence, or undefined when it is
 * text: a list or an indented mapping is named as such, since "no description" would send the author
 * looking for a key that is there.
 */
export function descriptionProblem(value: unknown): string | undefined {
  if (value === undefined || value === null) return "frontmatter has no description";
  if (Array.isArray(value)) return "the description is a list, not text";
  const text = scalarText(value);
  if (text === undefined) return "the description is a mapping (indented 'key: value' lines), not text";
  return text.trim() === "" ? "the description is empty" : undefined;
}

/**
 * The most entries read from one frontmatter list: a skill's tags; a tree node's `keywords`, `tags`,
 * `assets`, `scripts` and a script's `args`. Real files list a handful; every search and get_skill
 * compares a request's words with each keyword of every node, and every answer that shows a skill
 * carries its tags, so one file listing thousands would slow every call and swell every answer. The
 * rest of a longer list is ignored, with a warning.
 */
export const LIST_MAX = 256;

/** Reports a list (`what`, as the frontmatter names it) of `count` entries, over LIST_MAX. */
export type TooMany = (what: string, count: number) => void;

/** A TooMany that adds a warning about `file` to `diagnostics` (`too-many-keywords` for keywords). */
export function tooManyWarnings(diagnostics: Diagnostic[], file: string, kind: "skill" | "tree node"): TooMany {
  return (what, count) =>
    diagnostics.push(
      diagnostic(
        what === "keywords" ? "too-many-keywords" : "too-many-entries",
        "warning",
        file,
        `${what} lists ${count} entries, more than the ${LIST_MAX} a ${kind} may have; only the first ${LIST_MAX} are read.`,
      ),
    );
}

/** The first LIST_MAX entries of `list`, reporting a longer one. */
export function firstEntries<T>(list: readonly T[], what: string, tooMany: TooMany): readonly T[] {
  if (list.length <= LIST_MAX) return list;
  tooMany(what, list.length);
  return list.slice(0, LIST_MAX);
}

/** Reports a frontmatter value that is ignored (`invalid-field`, a warning). */
export type Warn = (message: string) => void;

/**
 * The longest keyword, tag or category read, in characters: each is a word or a short phrase (real ones
 * stay under 40). Every search compares a request's words with them and every answer that shows a skill
 * carries its category and tags, so a longer one is ignored, with a warning.
 */
export const WORD_MAX_CHARS = 100;

/** `text` as a keyword, tag or category (`what`) is read: trimmed, lower-cased; undefined (reported) over WORD_MAX_CHARS. */
export function wordOf(text: string, what: string, warn: Warn): string | undefined {
  const word = text.trim().toLowerCase();
  // Characters, not UTF-16 units: an emoji is one.
  if (word.length <= WORD_MAX_CHARS || [...word].length <= WORD_MAX_CHARS) return word;
  warn(`${what} '${[...word].slice(0, 40).join("")}…' is over ${WORD_MAX_CHARS} characters; ignored.`);
  return undefined;
}

/** A frontmatter value as a word (wordOf), when it is a scalar and not empty; else undefined. */
export function scalarWord(value: unknown, what: string, warn: Warn): string | undefined {
  const text = scalarText(value);
  return (text !== undefined && wordOf(text, what, warn)) || undefined;
}

/** Tags as read from a list (or "a, b" split): words (wordOf), de-duplicated in order, the first LIST_MAX. */
export function tagWords(list: readonly unknown[], tooMany: TooMany, warn: Warn): string[] {
  const read = firstEntries(list, "tags", tooMany);
  return [...new Set(read.map((t) => scalarWord(t, "tag", warn)).filter((t): t is string => t !== undefined))];
}
