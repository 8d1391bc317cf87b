import { parse as parseStrict } from "yaml";
import { detach } from "../util/detach.ts";

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

function tryParse(text: string): { ok: true; data: unknown } | { ok: false; error: string } {
  try {
    if (!MAY_ALIAS.test(text)) return { ok: true, data: Bun.YAML.parse(text) };
  } catch {
    // Bun's messages carry no position; ask the strict parser for a better one below.
  }
  try {
    return { ok: true, data: parseStrict(text, { maxAliasCount: 50, prettyErrors: true }) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: message.split("\n")[0] ?? message };
  }
}

/** Quote top-level and nested `key: value` lines whose plain value YAML cannot read. */
function quoteBrokenValues(text: string): { text: string; keys: string[] } {
  const keys: string[] = [];
  const lines = text.split("\n").map((line) => {
    const match = /^(\s*(?:-\s+)?)([A-Za-z0-9_][\w.-]*):[ \t]+(.+?)\s*$/.exec(line);
    if (!match) return line;
    const [, indent = "", key = "", value = ""] = match;
    if (/^["'[{|>!&*#]/.test(value)) return line;
    if (!value.includes(": ") && !value.endsWith(":") && !RESERVED_START.test(value)) return line;
    keys.push(key);
    return `${indent}${key}: ${JSON.stringify(value)}`;
  });
  return { text: lines.join("\n"), keys };
}
