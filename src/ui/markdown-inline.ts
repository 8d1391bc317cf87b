import { escapeHtml, externalUrl, isRelativeTarget } from "./escape.ts";

/** How links in a skill's Markdown are turned into hrefs. */
export interface LinkPolicy {
  /** The page's href for a file of the skill named by a relative link, or undefined to render text only. */
  file?: (relativePath: string) => string | undefined;
}

/** Deepest nesting of emphasis and link text; beyond it the rest is plain text (no unbounded recursion). */
const MAX_DEPTH = 8;

interface Rule {
  pattern: RegExp;
  render: (match: RegExpExecArray, links: LinkPolicy, depth: number) => string;
}

/**
 * Inline rules, tried at every position; the earliest match wins, ties go to
 * the earlier rule. Each rule builds its own markup and escapes what it keeps,
 * so no text from the skill is ever passed through as HTML.
 */
const RULES: Rule[] = [
  { pattern: /(`+)([\s\S]*?[^`])\1(?!`)/y, render: (m) => `<code>${escapeHtml((m[2] ?? "").trim())}</code>` },
  // Images are not fetched (the policy allows no image source but the page's own): their alt text and a link.
  {
    pattern: /!\[([^\]]*)\]\(\s*<?([^()\s>]*)>?(?:\s+"[^"]*")?\s*\)/y,
    render: (m, links) => {
      const label = `image: ${m[1] || m[2] || ""}`;
      return link(m[2] ?? "", links, () => `[${escapeHtml(label)}]`);
    },
  },
  {
    pattern: /\[((?:[^[\]]|\[[^[\]]*\])*)\]\(\s*<?([^()\s>]*(?:\([^()\s]*\))?[^()\s>]*)>?(?:\s+"[^"]*")?\s*\)/y,
    render: (m, links, depth) => link(m[2] ?? "", links, () => renderInline(m[1] ?? "", links, depth + 1)),
  },
  {
    pattern: /<((?:https?:\/\/|mailto:)[^\s<>]+)>/y,
    render: (m, links) => link(m[1] ?? "", links, () => escapeHtml(m[1] ?? "")),
  },
  {
    pattern: /(\*\*|__)(?=\S)([\s\S]*?\S)\1/y,
    render: (m, links, depth) => `<strong>${renderInline(m[2] ?? "", links, depth + 1)}</strong>`,
  },
  {
    pattern: /~~(?=\S)([\s\S]*?\S)~~/y,
    render: (m, links, depth) => `<del>${renderInline(m[1] ?? "", links, depth + 1)}</del>`,
  },
  {
    pattern: /\*(?=[^\s*])([\s\S]*?[^\s*])\*|(?<![A-Za-z0-9])_(?=[^\s_])([\s\S]*?[^\s_])_(?![A-Za-z0-9])/y,
    render: (m, links, depth) => `<em>${renderInline(m[1] ?? m[2] ?? "", links, depth + 1)}</em>`,
  },
  // Bare URLs become links too (GFM autolinks): the common way skills cite documentation.
  {
    pattern: /https?:\/\/[^\s<>"'`]*[^\s<>"'`.,;:!?)\]]/y,
    render: (m, links) => link(m[0], links, () => escapeHtml(m[0])),
  },
];

/** Characters at which some rule may start; other text is copied (escaped) in runs. */
const STARTS = /[`![<*_~h\\]/g;

/**
 * One line's (or paragraph's) inline Markdown as HTML: code spans, emphasis,
 * strikethrough, links and autolinks, backslash escapes. Raw HTML is not
 * recognised: `<script>` comes out as the text "<script>". Pure.
 */
export function renderInline(text: string, links: LinkPolicy = {}, depth = 0): string {
  if (depth >= MAX_DEPTH) return escapeHtml(text);
  let out = "";
  let plainFrom = 0;
  let at = 0;
  while (at < text.length) {
    STARTS.lastIndex = at;
    const next = STARTS.exec(text);
    if (!next) break;
    at = next.index;
    const ch = text[at];
    if (ch === "\\" && at + 1 < text.length && /[!-/:-@[-`{-~]/.test(text[at + 1] ?? "")) {
      out += escapeHtml(text.slice(plainFrom, at)) + escapeHtml(text[at + 1] ?? "");
      at += 2;
      plainFrom = at;
      continue;
    }
    let matched = false;
    for (const rule of RULES) {
      rule.pattern.lastIndex = at;
      const m = rule.pattern.exec(text);
      if (!m) continue;
      out += escapeHtml(text.slice(plainFrom, at)) + rule.render(m, links, depth);
      at += m[0].length;
      plainFrom = at;
      matched = true;
      break;
    }
    if (!matched) at++;
  }
  return out + escapeHtml(text.slice(plainFrom));
}

/**
 * Security: a link is emitted only for an http(s)/mailto URL (opened as a new,
 * unrelated page) or a relative path the policy maps to one of the skill's
 * files; anything else (javascript:, data:, …) keeps its text and loses the link.
 */
function link(target: string, links: LinkPolicy, inner: () => string): string {
  const external = externalUrl(target);
  if (external)
    return `<a href="${escapeHtml(external)}" rel="noopener noreferrer nofollow" target="_blank">${inner()}</a>`;
  if (isRelativeTarget(target) && links.file) {
    const href = links.file(safeDecode(target.split(/[?#]/)[0] ?? ""));
    if (href) return `<a href="${escapeHtml(href)}">${inner()}</a>`;
  }
  return inner();
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
