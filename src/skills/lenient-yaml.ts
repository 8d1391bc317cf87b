import { detach } from "../util/detach.ts";
import { yaml } from "../util/lazy-yaml.ts";
import { yamlErrorAt } from "../util/yaml-error.ts";

export type YamlResult = { ok: true; data: unknown; recovered: string[] } | { ok: false; error: string };

/** Anchors and aliases are where YAML bombs live; such text goes to the strict parser with an alias cap. */
const MAY_ALIAS = /(^|[\s[{,:-])[&*][^\s]/;
/** Characters that cannot start a plain YAML scalar but often start a hand-written value. */
const RESERVED_START = /^[@`%]/;

/**
 * Parse frontmatter YAML, leniently. Fast path: Bun's native parser. On
 * failure, retry once with the values that break YAML quoted — an unquoted
 * `: ` inside a value is the most common real-world breakage — and report
 * which keys were recovered. Never throws.
 */
export function parseLenientYaml(input: string): YamlResult {
  // The frontmatter is a slice of the whole file: parse a copy so kept values do not pin the file.
  const text = detach(input);
  const first = tryParse(text);
  if (first.ok) return { ok: true, data: first.data, recovered: [] };
  const { text: repaired, keys } = quoteBrokenValues(text);
  if (keys.length > 0) {
    const second = tryParse(repaired);
    if (second.ok) return { ok: true, data: second.data, recovered: keys };
  }
  return { ok: false, error: first.error };
}

/**
 * Largest frontmatter the `yaml` package parses. It is superlinear on some
 * hostile inputs (1 MiB of `*a &b` takes minutes), while real frontmatter is
 * a few KiB (the largest in the 1,000-skill corpus is 2 KiB). Larger
 * frontmatter goes to Bun's native parser only.
 */
export const STRICT_PARSER_MAX_CHARS = 16_384;

function tryParse(text: string): { ok: true; data: unknown } | { ok: false; error: string } {
  const mayAlias = MAY_ALIAS.test(text);
  try {
    if (!mayAlias) return { ok: true, data: Bun.YAML.parse(text) };
  } catch {
    // Bun's messages carry no position; ask the strict parser for a better one below.
  }
  // Security: bounded time. Anchors in a huge frontmatter are refused rather than expanded or parsed slowly.
  if (text.length > STRICT_PARSER_MAX_CHARS)
    return {
      ok: false,
      error: mayAlias
        ? `frontmatter over ${STRICT_PARSER_MAX_CHARS} characters uses YAML anchors or aliases; not parsed`
        : `invalid YAML in a frontmatter over ${STRICT_PARSER_MAX_CHARS} characters (no position given)`,
    };
  try {
    return { ok: true, data: yaml().parse(text, { maxAliasCount: 50, prettyErrors: true }) };
  } catch (error) {
    // The frontmatter starts on the file's second line, after the opening `---`.
    return { ok: false, error: yamlErrorAt(error, text, 2) };
  }
}

/** `key:` at the start of a line (after indentation and an optional list dash): anchored, no nested quantifiers. */
const KEY_HEAD = /^([ \t]*(?:-[ \t]+)?)([A-Za-z0-9_][\w.-]*):[ \t]+/;

/**
 * Quote top-level and nested `key: value` lines whose plain value YAML cannot read.
 *
 * Security: linear in the line's length. The value is cut with trimEnd, not a
 * regex: `(.+?)\s*$` retried the lazy group at every position of a run of
 * spaces, so one line of 150,000 spaces held up the scan for 44 s.
 */
export function quoteBrokenValues(text: string): { text: string; keys: string[] } {
  const keys: string[] = [];
  const lines = text.split("\n").map((line) => {
    const match = KEY_HEAD.exec(line);
    if (!match) return line;
    const [head, indent = "", key = ""] = match;
    const value = line.slice(head.length).trimEnd();
    if (value === "") return line;
    if (/^["'[{|>!&*#]/.test(value)) return line;
    if (!value.includes(": ") && !value.endsWith(":") && !RESERVED_START.test(value)) return line;
    keys.push(key);
    return `${indent}${key}: ${JSON.stringify(value)}`;
  });
  return { text: lines.join("\n"), keys };
}
