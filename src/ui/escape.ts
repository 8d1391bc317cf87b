/**
 * Security: everything a skill author controls (SKILL.md, file names,
 * frontmatter, diagnostics quoting them) reaches the page as text. These are
 * the only ways server-built HTML and SVG put such text into markup.
 */

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text for an element body or a quoted attribute value: `& < > " '` become entities. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/**
 * Security: an http(s) or mailto URL the page may link to, or undefined.
 * Anything else (javascript:, data:, vbscript:, file:, protocol-relative
 * "//host") is refused; control characters and whitespace inside the scheme,
 * which browsers strip before parsing ("java\tscript:"), are refused too.
 */
export function externalUrl(raw: string): string | undefined {
  const url = raw.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused here.
  if (/[\u0000-\u001f\u007f\s]/.test(url)) return undefined;
  if (!/^(https?:\/\/[^/]|mailto:)/i.test(url)) return undefined;
  try {
    const parsed = new URL(url);
    return ["http:", "https:", "mailto:"].includes(parsed.protocol) ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a link target is a relative path inside a skill (no scheme, not absolute, no "//"). */
export function isRelativeTarget(raw: string): boolean {
  const url = raw.trim();
  if (url === "" || url.startsWith("#") || url.startsWith("/") || url.startsWith("\\")) return false;
  return !/^[a-z][a-z0-9+.-]*:/i.test(url);
}
