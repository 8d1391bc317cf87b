/**
 * Markdown built to make a page renderer go quadratic or worse: nested list markers and block quotes
 * (each level re-reads its lines), rule-like lines, emphasis and link openers without closers, backtick
 * runs, table-like lines. Shared by the renderer's tests (each renders before a benign text 16 times its
 * size does) and `make fuzz` (the page answers, /healthz meanwhile).
 */

/** One hostile page: a name and its Markdown. */
export interface HostileMarkdown {
  name: string;
  text: string;
}

const pad = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);

/** Every family, each about `bytes` long. */
export function hostileMarkdown(bytes = 512 * 1024): HostileMarkdown[] {
  const cases: [string, string, string][] = [
    // [name, repeated unit, tail]
    ["nested-list-markers", "- ", "x"],
    ["nested-list-markers-continued", "- ", "x\n  y\n"],
    ["nested-list-markers-blank", "- ", "x\n\n  y\n"],
    ["star-markers", "* ", "x"],
    ["underscore-markers", "_ ", "x"],
    ["plus-markers", "+ ", "x\n  y\n"],
    ["dash-pairs", "-- ", "x"],
    ["rule-like", "- -", "x"],
    ["ordered-markers", "1. ", "x\n   y\n"],
    ["nested-quotes", "> ", "x"],
    ["quoted-lists", "> - ", "x\n> y\n"],
    ["listed-quotes", "- > ", "x\n  y\n"],
    ["marker-lines", `${"- ".repeat(40)}x\n  y\n`, ""],
    ["deep-indent-lines", "- x\n  ", "y\n"],
    ["quote-lines", `${"> ".repeat(20)}x\n`, ""],
    ["strong-openers", "**a ", ""],
    ["em-openers", "*a ", ""],
    ["underscore-openers", "_a ", ""],
    ["strike-openers", "~~a ", ""],
    ["mixed-emphasis", "*_", ""],
    ["link-openers", "[a](", ""],
    ["image-openers", "![", "x"],
    ["backticks", "`\n", "\n\n"],
    ["double-backticks", "``\n  ", "\n  y\n"],
    ["table-lines", "| - \n", "x"],
    ["heading-lines", "# \n", "x"],
    ["escapes", "\\*", "x"],
  ];
  return cases.map(([name, unit, tail]) => ({ name, text: pad(unit, bytes - tail.length) + tail }));
}

/** Ordinary prose of `bytes`, the floor hostile pages are compared with. */
export function benignMarkdown(bytes: number): string {
  return pad("Lorem ipsum dolor sit amet, consectetur adipiscing elit.\n\n", bytes);
}
