import { escapeHtml } from "./escape.ts";
import { type LinkPolicy, renderInline } from "./markdown-inline.ts";

export type { LinkPolicy } from "./markdown-inline.ts";

/** Deepest nesting of lists and quotes rendered as such; deeper content is rendered flat. */
const MAX_NESTING = 12;

/** A fence's marker; the rest of its line (checked in fenceOf) may hold no backtick. */
const FENCE_MARKER = /^ {0,3}(`{3,}|~{3,})/;
/** A heading's opening hashes; its text and closing hashes are cut in headingOf. */
const HEADING_HASHES = /^ {0,3}(#+)/;
const QUOTE = /^ {0,3}> ?/;
const ITEM = /^( *)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
/** Most table cells of one document; the rows past it are rendered as text. */
const MAX_TABLE_CELLS = 20_000;

/**
 * A skill's Markdown as HTML, for the page. A small CommonMark subset that
 * covers what skills use: headings (from <h2>: the page has its <h1>), paragraphs, fenced and indented code,
 * lists (nested), block quotes, tables, rules, and the inline rules of
 * markdown-inline.ts.
 *
 * Security: there is no raw-HTML passthrough. Every piece of the source ends
 * up either as markup this renderer writes itself or as escaped text, so
 * `<script>`, `<img onerror>` and `<a href="javascript:">` in a SKILL.md are
 * shown, never run. Pure.
 */
export function renderMarkdown(source: string, links: LinkPolicy = {}): string {
  return blocks(source.replace(/\r\n?/g, "\n").split("\n"), links, 0, { cells: MAX_TABLE_CELLS });
}

/** What is left of the document's table cells (MAX_TABLE_CELLS), shared by every table in it. */
interface Budget {
  cells: number;
}

function blocks(lines: string[], links: LinkPolicy, nesting: number, budget: Budget): string {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (line.trim() === "") {
      i++;
      continue;
    }
    const fence = fenceOf(line);
    if (fence) {
      const { marker } = fence;
      const body: string[] = [];
      i++;
      while (i < lines.length && !new RegExp(`^ {0,3}${marker[0]}{${marker.length},}\\s*$`).test(lines[i] ?? "")) {
        body.push(lines[i] ?? "");
        i++;
      }
      i++;
      const lang = fence.lang ? ` class="language-${escapeHtml(fence.lang.replace(/[^A-Za-z0-9_+-]/g, ""))}"` : "";
      out.push(`<pre><code${lang}>${escapeHtml(body.join("\n"))}</code></pre>`);
      continue;
    }
    const heading = headingOf(line);
    if (heading) {
      // One level down: the page's own <h1> names the skill or the file; `#` is a section of it.
      const level = Math.min(6, heading.level + 1);
      out.push(`<h${level}>${renderInline(heading.text, links)}</h${level}>`);
      i++;
      continue;
    }
    if (isRule(line)) {
      out.push("<hr>");
      i++;
      continue;
    }
    if (/^(?: {4}|\t)/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && (/^(?: {4}|\t)/.test(lines[i] ?? "") || (lines[i] ?? "").trim() === "")) {
        body.push((lines[i] ?? "").replace(/^(?: {4}|\t)/, ""));
        i++;
      }
      while (body.length > 0 && body[body.length - 1]?.trim() === "") body.pop();
      out.push(`<pre><code>${escapeHtml(body.join("\n"))}</code></pre>`);
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i] ?? "")) {
        body.push((lines[i] ?? "").replace(QUOTE, ""));
        i++;
      }
      out.push(
        nesting < MAX_NESTING
          ? `<blockquote>${blocks(body, links, nesting + 1, budget)}</blockquote>`
          : `<p>${renderInline(body.join(" "), links)}</p>`,
      );
      continue;
    }
    if (ITEM.test(line)) {
      i = list(lines, i, links, nesting, budget, out);
      continue;
    }
    if (line.includes("|") && isTableSeparator(lines[i + 1] ?? "")) {
      i = table(lines, i, links, budget, out);
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && (lines[i] ?? "").trim() !== "" && !startsBlock(lines[i] ?? "")) {
      para.push((lines[i] ?? "").trim());
      i++;
    }
    if (para.length === 0) {
      // A line that looks like a block start but was not taken above: show it as text.
      para.push(line.trim());
      i++;
    }
    out.push(`<p>${renderInline(para.join("\n"), links)}</p>`);
  }
  return out.join("\n");
}

function startsBlock(line: string): boolean {
  return (
    fenceOf(line) !== undefined || headingOf(line) !== undefined || isRule(line) || QUOTE.test(line) || ITEM.test(line)
  );
}

/*
 * The block tests below are cut by hand, not one regular expression each: `FENCE`, `HEADING` and the table
 * separator's expressions put two optional runs side by side, which backtracked quadratically over a long
 * line (32,000 characters: 1.3–2 s each, and FENCE ran on every paragraph line).
 */

/** A fence: three or more backticks or tildes, then an info string with no backtick (its first word the language). */
function fenceOf(line: string): { marker: string; lang: string } | undefined {
  const open = FENCE_MARKER.exec(line);
  if (!open) return undefined;
  const info = line.slice(open[0].length);
  if (info.includes("`")) return undefined;
  return { marker: open[1] ?? "```", lang: info.trim().split(/[ \t]/, 1)[0] ?? "" };
}

/** An ATX heading: 1–6 hashes, then nothing or a space and the text; a closing run of hashes is dropped. */
function headingOf(line: string): { level: number; text: string } | undefined {
  const open = HEADING_HASHES.exec(line);
  const level = open?.[1]?.length ?? 0;
  if (!open || level > 6) return undefined;
  const rest = line.slice(open[0].length);
  if (rest !== "" && rest[0] !== " " && rest[0] !== "\t") return undefined;
  let text = rest.trim();
  let end = text.length;
  while (end > 0 && text[end - 1] === "#") end--;
  if (end < text.length && (end === 0 || text[end - 1] === " " || text[end - 1] === "\t"))
    text = text.slice(0, end).trimEnd();
  return { level, text };
}

/**
 * A thematic break: up to three spaces, then three or more of one of `-`, `*`, `_`, with only spaces or
 * tabs between and after. One pass: the expression it replaces (a repeated group holding a
 * backreference) backtracked quadratically on a long line of list markers (`- - - … x`), and the test
 * runs on every line at every level of nesting (512 KB of markers: 44 s, the server stalled meanwhile).
 */
function isRule(line: string): boolean {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 32) i++;
  const mark = line[i];
  if (mark !== "-" && mark !== "*" && mark !== "_") return false;
  let count = 0;
  for (; i < line.length; i++) {
    const c = line[i];
    if (c === mark) count++;
    else if (c !== " " && c !== "\t") return false;
  }
  return count >= 3;
}

/** A GFM table's separator row: cells of `-` with an optional `:` at either end, between pipes. */
function isTableSeparator(line: string): boolean {
  return cells(line).every((cell) => /^:?-+:?$/.test(cell));
}

/** A list starting at `start`: items at its indentation; deeper lines belong to the item above. */
function list(
  lines: string[],
  start: number,
  links: LinkPolicy,
  nesting: number,
  budget: Budget,
  out: string[],
): number {
  const first = ITEM.exec(lines[start] ?? "");
  const indent = first?.[1]?.length ?? 0;
  const ordered = /\d/.test(first?.[2] ?? "");
  const startNumber = ordered ? Number.parseInt(first?.[2] ?? "1", 10) : 1;
  const items: string[][] = [];
  let i = start;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    const item = ITEM.exec(line);
    if (item && (item[1]?.length ?? 0) <= indent + 1 && /\d/.test(item[2] ?? "") === ordered) {
      items.push([item[3] ?? ""]);
      i++;
      continue;
    }
    if (item && (item[1]?.length ?? 0) <= indent + 1) break;
    if (line.trim() === "") {
      // A blank line ends the list unless the next line is indented under it or is another item.
      const next = lines[i + 1] ?? "";
      const nextItem = ITEM.exec(next);
      const continues =
        (nextItem && (nextItem[1]?.length ?? 0) <= indent + 1 && /\d/.test(nextItem[2] ?? "") === ordered) ||
        /^\s/.test(next);
      if (!continues || next.trim() === "") break;
      items[items.length - 1]?.push("");
      i++;
      continue;
    }
    const lastItem = items[items.length - 1];
    if (!lastItem) break;
    // Lazy continuation or nested content: strip the item's indentation.
    lastItem.push(line.replace(new RegExp(`^ {0,${indent + 4}}`), ""));
    i++;
  }
  const rendered = items.map((body) => {
    const simple = body.length === 1;
    const html =
      simple || nesting >= MAX_NESTING
        ? renderInline(body.join(" ").trim(), links)
        : blocks(body, links, nesting + 1, budget).replace(/^<p>([\s\S]*?)<\/p>/, "$1");
    return `<li>${html}</li>`;
  });
  const tag = ordered ? "ol" : "ul";
  const startAttr = ordered && startNumber !== 1 ? ` start="${startNumber}"` : "";
  out.push(`<${tag}${startAttr}>\n${rendered.join("\n")}\n</${tag}>`);
  return i;
}

/**
 * Widest table rendered as one; a wider header is text. Each row is rendered with the header's columns,
 * so a 30,000-column header over 17,000 one-character rows (64 KB of "|") made 510 million cells: 119 s
 * and 10 GB before the page's answer failed, every other request waiting. The document's cells are
 * bounded too (MAX_TABLE_CELLS), so many small tables cannot add up to the same.
 */
const MAX_TABLE_COLUMNS = 64;

/** A GFM table: header, separator, then rows while lines hold a "|". */
function table(lines: string[], start: number, links: LinkPolicy, budget: Budget, out: string[]): number {
  const header = cells(lines[start] ?? "");
  if (header.length > MAX_TABLE_COLUMNS || budget.cells < header.length) {
    out.push(`<p>${renderInline(`${(lines[start] ?? "").trim()}\n${(lines[start + 1] ?? "").trim()}`, links)}</p>`);
    return start + 2;
  }
  budget.cells -= header.length;
  const aligns = cells(lines[start + 1] ?? "").map((c) =>
    c.startsWith(":") && c.endsWith(":") ? "center" : c.endsWith(":") ? "right" : c.startsWith(":") ? "left" : "",
  );
  const cell = (tag: "th" | "td", text: string, col: number) => {
    const align = aligns[col] ? ` class="align-${aligns[col]}"` : "";
    return `<${tag}${align}>${renderInline(text, links)}</${tag}>`;
  };
  const rows: string[] = [];
  let i = start + 2;
  while (
    i < lines.length &&
    budget.cells >= header.length &&
    (lines[i] ?? "").includes("|") &&
    (lines[i] ?? "").trim() !== ""
  ) {
    const row = cells(lines[i] ?? "");
    rows.push(`<tr>${header.map((_, col) => cell("td", row[col] ?? "", col)).join("")}</tr>`);
    budget.cells -= header.length;
    i++;
  }
  out.push(
    `<div class="table-wrap"><table>\n<thead><tr>${header.map((h, col) => cell("th", h, col)).join("")}</tr></thead>\n<tbody>\n${rows.join("\n")}\n</tbody></table></div>`,
  );
  return i;
}

/** The cells of a table row; "\|" stays inside a cell. */
function cells(line: string): string[] {
  const trimmed = line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "");
  return trimmed.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}
