/**
 * A git config file's values, read from its text as git reads it (config.c), so that a copy's own
 * `.git/config` is read without starting git. Include directives are not followed, as `git config --local`
 * follows none (a copy whose config holds one is not served: git-origin.ts).
 */

/** One `name = value` of a config file: its key as `git config --list` names it, and its value. */
export interface ConfigEntry {
  /** `section.subsection.name`: section and name in lower case, the subsection as written. */
  key: string;
  value: string;
}

/**
 * The values of `key` (`section.subsection.name`; section and name in any case, the subsection as written)
 * in `text`, in the file's order. A key written without `=` has the value "". Undefined when git would
 * refuse the file (a bad section header, an unknown escape, an unclosed quote). Pure.
 */
export function configValues(text: string, key: string): string[] | undefined {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  const wanted =
    first < 0
      ? key.toLowerCase()
      : `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}.${key.slice(last + 1).toLowerCase()}`;
  return configEntries(text)
    ?.filter((entry) => entry.key === wanted)
    .map((entry) => entry.value);
}

/**
 * Every entry of the config file `text`, in the file's order, as `git config --file F --list` gives them.
 * Undefined when git would refuse the file. Pure.
 */
export function configEntries(text: string): ConfigEntry[] | undefined {
  const reader = new Reader(text.startsWith("\uFEFF") ? text.slice(1) : text);
  const entries: ConfigEntry[] = [];
  let section: string | undefined;
  let comment = false;
  for (;;) {
    const c = reader.next();
    if (c === "\n") {
      if (reader.eof) return entries;
      comment = false;
      continue;
    }
    if (comment || isSpace(c)) continue;
    if (c === "#" || c === ";") {
      comment = true;
      continue;
    }
    if (c === "[") {
      section = sectionName(reader);
      if (section === undefined || section === "") return undefined;
      continue;
    }
    if (!isAlpha(c)) return undefined;
    const entry = keyValue(reader, c);
    if (entry === undefined) return undefined;
    if (section !== undefined) entries.push({ key: `${section}.${entry.name}`, value: entry.value });
  }
}

/** The characters of a text, `\r\n` read as `\n`, and `\n` for ever once it ends (git's get_next_char). */
class Reader {
  private at = 0;
  eof = false;
  constructor(private readonly text: string) {}

  next(): string {
    if (this.at >= this.text.length) {
      this.eof = true;
      return "\n";
    }
    const c = this.text[this.at++] as string;
    if (c === "\r" && this.text[this.at] === "\n") {
      this.at++;
      return "\n";
    }
    return c;
  }
}

/** git's isspace (git-compat-util.h): space, tab, line feed and carriage return; not C's \v and \f. */
function isSpace(c: string): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r";
}

/** C's isalpha, in the C locale. */
function isAlpha(c: string): boolean {
  const lower = c.charCodeAt(0) | 0x20;
  return c.length === 1 && lower >= 0x61 && lower <= 0x7a;
}

/** What a section or key name may hold: letters, digits and `-`. */
function isKeyChar(c: string): boolean {
  const code = c.charCodeAt(0);
  return isAlpha(c) || (code >= 0x30 && code <= 0x39) || c === "-";
}

/**
 * A section header after its `[`: `[section]` or `[section.sub]` in lower case, `[section "sub"]` with the
 * subsection as written (`\x` is x). Undefined when git refuses it.
 */
function sectionName(reader: Reader): string | undefined {
  let name = "";
  for (;;) {
    const c = reader.next();
    if (reader.eof) return undefined;
    if (c === "]") return name;
    if (isSpace(c)) return subsectionName(reader, name, c);
    if (!isKeyChar(c) && c !== ".") return undefined;
    name += c.toLowerCase();
  }
}

function subsectionName(reader: Reader, section: string, space: string): string | undefined {
  let c = space;
  do {
    if (c === "\n") return undefined;
    c = reader.next();
  } while (isSpace(c));
  if (c !== '"') return undefined;
  let name = `${section}.`;
  for (;;) {
    let d = reader.next();
    if (d === "\n") return undefined;
    if (d === '"') break;
    if (d === "\\") {
      d = reader.next();
      if (d === "\n") return undefined;
    }
    name += d;
  }
  return reader.next() === "]" ? name : undefined;
}

/** A `name = value` line from its first letter `c`: the name in lower case and the value. */
function keyValue(reader: Reader, c: string): { name: string; value: string } | undefined {
  let name = c.toLowerCase();
  let d: string;
  for (;;) {
    d = reader.next();
    if (reader.eof || !isKeyChar(d)) break;
    name += d.toLowerCase();
  }
  while (d === " " || d === "\t") d = reader.next();
  if (d === "\n") return { name, value: "" };
  if (d !== "=") return undefined;
  const value = parseValue(reader);
  return value === undefined ? undefined : { name, value };
}

/**
 * A value after its `=`: leading and trailing blanks dropped (those inside kept), `"…"` quoting,
 * `\t \b \n \\ \"` escapes and `\` at a line's end continuing it, `#` or `;` outside quotes starting a
 * comment. Undefined for an unknown escape or a quote left open.
 */
function parseValue(reader: Reader): string | undefined {
  let value = "";
  let quote = false;
  let comment = false;
  // The length to cut the value back to when only blanks follow (0: none to cut).
  let trim = 0;
  for (;;) {
    let c = reader.next();
    if (c === "\n") {
      if (quote) return undefined;
      return trim > 0 ? value.slice(0, trim) : value;
    }
    if (comment) continue;
    if (isSpace(c) && !quote) {
      if (trim === 0) trim = value.length;
      if (value.length > 0) value += c;
      continue;
    }
    if (!quote && (c === ";" || c === "#")) {
      comment = true;
      continue;
    }
    trim = 0;
    if (c === "\\") {
      c = reader.next();
      if (c === "\n") continue;
      const escaped = ESCAPES[c];
      if (escaped === undefined) return undefined;
      value += escaped;
      continue;
    }
    if (c === '"') {
      quote = !quote;
      continue;
    }
    value += c;
  }
}

const ESCAPES: Readonly<Record<string, string>> = { t: "\t", b: "\b", n: "\n", "\\": "\\", '"': '"' };
