/** skill:// URIs: building them from paths, and one canonical key for looking a client's URI up. */

const SCHEME = "skill://";

/** A path segment as it appears in a URI. */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment);
}

/** A source label as a URI prefix segment: lower case letters, digits and hyphens. */
function labelSegment(label: string): string {
  return label.toLowerCase().replace(/[^a-z0-9-]+/g, "-");
}

/** The URIs of one skill: `skill://[<prefix>/]<name>`, its files and directories under it. */
export function skillRoot(prefix: readonly string[], name: string) {
  const segments = [...prefix.map(labelSegment), name];
  const base = SCHEME + segments.map(encodeSegment).join("/");
  const under = (path: string) => (path === "" ? base : `${base}/${path.split("/").map(encodeSegment).join("/")}`);
  return {
    /** The skill path (`acme/refunds`) skillEntry checks against the frontmatter name. */
    path: segments.join("/"),
    file: under,
    dir: under,
  };
}

/**
 * The lookup key of a URI: each segment decoded then re-encoded, so
 * `skill://a/b%20c` and `skill://a/b c` meet, and `skill://a/b/` is `skill://a/b`. Undefined for anything not
 * under skill:// or not decodable; a `..` or empty segment stays in the key
 * and so never matches a published file (no traversal by URI).
 */
export function uriKey(uri: string): string {
  if (!uri.startsWith(SCHEME)) return uri;
  // One trailing slash names the same folder (`skill://x/` is `skill://x`); more stay, and match nothing.
  const path = uri.slice(SCHEME.length);
  const segments = (path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path).split("/");
  try {
    return SCHEME + segments.map((s) => encodeSegment(decodeURIComponent(s))).join("/");
  } catch {
    return uri;
  }
}
