import { escapeHtml, externalUrl, isRelativeTarget } from "./escape.ts";

/** How links in a skill's Markdown are turned into hrefs. */
export interface LinkPolicy {
  /** The page's href for a file of the skill named by a relative link, or undefined to render text only. */
  file?: (relativePath: string) => string | undefined;
}

/** Deepest nesting of emphasis and link text; beyond it the rest is plain text (no unbounded recursion). */
const MAX_DEPTH = 8;

/** Where a closing marker next occurs at or after a position (-1: nowhere after it). */
type NextAt = (marker: RegExp, from: number) => number;

interface Rule {
  /** The characters a match can start with: a position is tried only against the rules it can start. */
  first: string;
  pattern: RegExp;
  /**
   * Whether `pattern` can match at `at` at all, from where its closing marker next occurs: without this
   * a lazy `[\s\S]*?` looked for a closer to the end of the text at every opener (`**a ` repeated: 1.4 s
   * for 64 K characters, 27 s for 256 K, the whole server stalled meanwhile). When it says yes, the
   * pattern matches and consumes what it scanned, so a text costs each rule one pass.
   */
  possible?: (text: string, at: number, next: NextAt) => boolean;
  render: (match: RegExpExecArray, links: LinkPolicy, depth: number) => string;
}

/** A closing marker after the opener (`skip` characters long) and at least one character of content. */
const closes =
  (marker: RegExp, skip: number): Rule["possible"] =>
  (_text, at, next) =>
    next(marker, at + skip) >= 0;

/** Markers are the look-up's keys: each is made once, here or in RULES, never in a function. */
const CLOSE_BRACKET = /\]/g;

/**
 * Inline rules, tried at every position; the earliest match wins, ties go to
 * the earlier rule. Each rule builds its own markup and escapes what it keeps,
 * so no text from the skill is ever passed through as HTML. Code spans come
 * first, outside this list (codeSpan).
 */
const RULES: Rule[] = [
  // Images are not fetched (the policy allows no image source but the page's own): their alt text and a link.
  {
    first: "!",
    // The alt text holds no "[": each "![" scans only to the next one, not all to one shared "](".
    pattern: /!\[([^[\]]*)\]\(\s*<?([^()\s>]*)>?(?:\s+"[^"]*")?\s*\)/y,
    // The alt text ends at the first "]", which must open the target.
    possible: (text, at, next) => {
      const end = next(CLOSE_BRACKET, at + 2);
      return end >= 0 && text[end + 1] === "(";
    },
    render: (m, links) => {
      const label = `image: ${m[1] || m[2] || ""}`;
      return link(m[2] ?? "", links, () => `[${escapeHtml(label)}]`);
    },
  },
  {
    first: "[",
    // The target: characters or parenthesised runs, one way only (two classes side by side backtracked
    // quadratically over a long target with no ")").
    pattern: /\[((?:[^[\]]|\[[^[\]]*\])*)\]\(\s*<?((?:[^()\s>]|\([^()\s]*\))*)>?(?:\s+"[^"]*")?\s*\)/y,
    render: (m, links, depth) => link(m[2] ?? "", links, () => renderInline(m[1] ?? "", links, depth + 1)),
  },
  {
    first: "<",
    pattern: /<((?:https?:\/\/|mailto:)[^\s<>]+)>/y,
    render: (m, links) => link(m[1] ?? "", links, () => escapeHtml(m[1] ?? "")),
  },
  {
    first: "*",
    pattern: /\*\*(?=\S)([\s\S]*?\S)\*\*/y,
    possible: closes(/\S\*\*/g, 2),
    render: (m, links, depth) => `<strong>${renderInline(m[1] ?? "", links, depth + 1)}</strong>`,
  },
  {
    first: "_",
    pattern: /__(?=\S)([\s\S]*?\S)__/y,
    possible: closes(/\S__/g, 2),
    render: (m, links, depth) => `<strong>${renderInline(m[1] ?? "", links, depth + 1)}</strong>`,
  },
  {
    first: "~",
    pattern: /~~(?=\S)([\s\S]*?\S)~~/y,
    possible: closes(/\S~~/g, 2),
    render: (m, links, depth) => `<del>${renderInline(m[1] ?? "", links, depth + 1)}</del>`,
  },
  {
    first: "*",
    pattern: /\*(?=[^\s*])([\s\S]*?[^\s*])\*/y,
    possible: closes(/[^\s*]\*/g, 1),
    render: (m, links, depth) => `<em>${renderInline(m[1] ?? "", links, depth + 1)}</em>`,
  },
  {
    first: "_",
    pattern: /(?<![A-Za-z0-9])_(?=[^\s_])([\s\S]*?[^\s_])_(?![A-Za-z0-9])/y,
    possible: closes(/[^\s_]_(?![A-Za-z0-9])/g, 1),
    render: (m, links, depth) => `<em>${renderInline(m[1] ?? "", links, depth + 1)}</em>`,
  },
  // Bare URLs become links too (GFM autolinks): the common way skills cite documentation.
  {
    first: "h",
    pattern: /https?:\/\/[^\s<>"'`]*[^\s<>"'`.,;:!?)\]]/y,
    render: (m, links) => link(m[0], links, () => escapeHtml(m[0])),
  },
];

/** For each character a rule can start with, those rules, in RULES' order (ties go to the earlier rule). */
const RULES_BY_FIRST = new Map<string, Rule[]>();
for (const rule of RULES)
  for (const ch of rule.first) RULES_BY_FIRST.set(ch, [...(RULES_BY_FIRST.get(ch) ?? []), rule]);

/** Characters at which some rule may start; other text is copied (escaped) in runs. */
const STARTS = /[`![<*_~h\\]/g;

/** Longest backtick run that opens a code span; a longer one is text. */
const MAX_TICKS = 32;
/** For each run length, a run of exactly that many backticks. */
const TICK_RUNS = Array.from({ length: MAX_TICKS + 1 }, (_, n) => new RegExp(`(?<!\`)\`{${n}}(?!\`)`, "g"));

/**
 * One line's (or paragraph's) inline Markdown as HTML: code spans, emphasis,
 * strikethrough, links and autolinks, backslash escapes. Raw HTML is not
 * recognised: `<script>` comes out as the text "<script>". Pure; linear in the
 * text's length for each level of nesting (at most MAX_DEPTH).
 */
export function renderInline(text: string, links: LinkPolicy = {}, depth = 0): string {
  if (depth >= MAX_DEPTH) return escapeHtml(text);
  const next = nextAt(text);
  let out = "";
  let plainFrom = 0;
  let at = 0;
  while (at < text.length) {
    STARTS.lastIndex = at;
    const start = STARTS.exec(text);
    if (!start) break;
    at = start.index;
    const ch = text[at];
    if (ch === "\\" && at + 1 < text.length && /[!-/:-@[-`{-~]/.test(text[at + 1] ?? "")) {
      out += escapeHtml(text.slice(plainFrom, at)) + escapeHtml(text[at + 1] ?? "");
      at += 2;
      plainFrom = at;
      continue;
    }
    if (ch === "`") {
      const span = codeSpan(text, at, next);
      if (span.html) {
        out += escapeHtml(text.slice(plainFrom, at)) + span.html;
        plainFrom = span.end;
      }
      at = span.end;
      continue;
    }
    let matched = false;
    for (const rule of RULES_BY_FIRST.get(ch ?? "") ?? []) {
      if (rule.possible && !rule.possible(text, at, next)) continue;
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
 * The code span opened by the backtick run at `at`: it ends at the next run of exactly as many backticks.
 * Without one, the whole run is text (`end` past it, no `html`).
 */
function codeSpan(text: string, at: number, next: NextAt): { end: number; html?: string } {
  let ticks = 1;
  while (text[at + ticks] === "`") ticks++;
  const close = ticks <= MAX_TICKS ? next(TICK_RUNS[ticks] as RegExp, at + ticks) : -1;
  if (close < 0) return { end: at + ticks };
  return { end: close + ticks, html: `<code>${escapeHtml(text.slice(at + ticks, close).trim())}</code>` };
}

/**
 * Where each marker next occurs in `text`, remembered: positions only grow within a text, so a marker's
 * search starts where its last one ended (and "nowhere" stays nowhere).
 */
function nextAt(text: string): NextAt {
  const found = new Map<RegExp, number>();
  return (marker, from) => {
    const known = found.get(marker);
    if (known !== undefined && (known === -1 || known >= from)) return known;
    marker.lastIndex = from;
    const index = marker.exec(text)?.index ?? -1;
    found.set(marker, index);
    return index;
  };
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
