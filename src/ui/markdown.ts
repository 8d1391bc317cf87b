import { escapeHtml } from "./escape.ts";
import { type LinkPolicy, renderInline } from "./markdown-inline.ts";

export type { LinkPolicy } from "./markdown-inline.ts";

/** Deepest nesting of lists and quotes rendered as such; deeper content is rendered flat. */
const MAX_NESTING = 12;

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?/;
const ITEM = /^( *)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
const TABLE_SEPARATOR = /^ *\|? *:?-+:? *(?:\| *:?-+:? *)*\|? *$/;

/**
 * A skill's Markdown as HTML, for the page. A small CommonMark subset that
 * covers what skills use: headings, paragraphs, fenced and indented code,
 * lists (nested), block quotes, tables, rules, and the inline rules of
 * markdown-inline.ts.
 *
 * Security: there is no raw-HTML passthrough. Every piece of the source ends
 * up either as markup this renderer writes itself or as escaped text, so
 * `<script>`, `<img onerror>` and `<a href="javascript:">` in a SKILL.md are
 * shown, never run. Pure.
 */
export function renderMarkdown(source: string, links: LinkPolicy = {}): string {
  return blocks(source.replace(/\r\n?/g, "\n").split("\n"), links, 0);
}

function blocks(lines: string[], links: LinkPolicy, nesting: number): string {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (line.trim() === "") {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] ?? "```";
      const body: string[] = [];
      i++;
      while (i < lines.length && !new RegExp(`^ {0,3}${marker[0]}{${marker.length},}\\s*$`).test(lines[i] ?? "")) {
        body.push(lines[i] ?? "");
        i++;
      }
      i++;
      const lang = fence[2] ? ` class="language-${escapeHtml(fence[2].replace(/[^A-Za-z0-9_+-]/g, ""))}"` : "";
      out.push(`<pre><code${lang}>${escapeHtml(body.join("\n"))}</code></pre>`);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = heading[1]?.length ?? 1;
      out.push(`<h${level}>${renderInline(heading[2] ?? "", links)}</h${level}>`);
      i++;
      continue;
    }
    if (RULE.test(line)) {
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
          ? `<blockquote>${blocks(body, links, nesting + 1)}</blockquote>`
          : `<p>${renderInline(body.join(" "), links)}</p>`,
      );
      continue;
    }
    if (ITEM.test(line)) {
      i = list(lines, i, links, nesting, out);
      continue;
    }
    if (line.includes("|") && TABLE_SEPARATOR.test(lines[i + 1] ?? "") && (lines[i + 1] ?? "").includes("-")) {
      i = table(lines, i, links, out);
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
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line);
}

/** A list starting at `start`: items at its indentation; deeper lines belong to the item above. */
function list(lines: string[], start: number, links: LinkPolicy, nesting: number, out: string[]): number {
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
        : blocks(body, links, nesting + 1).replace(/^<p>([\s\S]*?)<\/p>/, "$1");
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
 * and 10 GB before the page's answer failed, every other request waiting.
 */
const MAX_TABLE_COLUMNS = 64;
/** Most cells of one table (rows × columns); the rows past it are rendered as text. */
const MAX_TABLE_CELLS = 20_000;

/** A GFM table: header, separator, then rows while lines hold a "|". */
function table(lines: string[], start: number, links: LinkPolicy, out: string[]): number {
  const header = cells(lines[start] ?? "");
  if (header.length > MAX_TABLE_COLUMNS) {
    out.push(`<p>${renderInline(`${(lines[start] ?? "").trim()}\n${(lines[start + 1] ?? "").trim()}`, links)}</p>`);
    return start + 2;
  }
  const maxRows = Math.floor(MAX_TABLE_CELLS / header.length) - 1;
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
    rows.length < maxRows &&
    (lines[i] ?? "").includes("|") &&
    (lines[i] ?? "").trim() !== ""
  ) {
    const row = cells(lines[i] ?? "");
    rows.push(`<tr>${header.map((_, col) => cell("td", row[col] ?? "", col)).join("")}</tr>`);
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
