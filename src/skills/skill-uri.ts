/**
 * skill:// URIs: one scheme for the skills extension's resources and for the
 * tools' answers to clients that do not share the server's disk; building them
 * from names, and one canonical key for looking a client's URI up.
 */
import type { Skill } from "./skill.ts";

export const SKILL_URI_SCHEME = "skill://";
const SCHEME = SKILL_URI_SCHEME;

/** A path segment as it appears in a URI. */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment);
}

/** A source label as a URI prefix segment: lower case letters, digits and hyphens. */
function labelSegment(label: string): string {
  return label.toLowerCase().replace(/[^a-z0-9-]+/g, "-");
}

/**
 * The URIs of one skill: `skill://[<prefix>/]<name>`, its files and directories under it. A name holding
 * `/` (a tree node's skill path, `ops/deploy`) is that many segments, as its resource folder lies in the
 * tree: `skill://ops/deploy/scripts/run.sh` is the file `ops/deploy/scripts/run.sh` of the tree.
 */
export function skillRoot(prefix: readonly string[], name: string) {
  const segments = [...prefix.map(labelSegment), ...name.split("/")];
  const base = SCHEME + segments.map(encodeSegment).join("/");
  const under = (path: string) => (path === "" ? base : `${base}/${path.split("/").map(encodeSegment).join("/")}`);
  return {
    /** The skill path (`acme/refunds`) skillEntry checks against the frontmatter name. */
    path: segments.join("/"),
    file: under,
    dir: under,
  };
}

/** Whether `uri` is under skill://, its scheme written in any case, as URI schemes are. */
export function isSkillUri(uri: string): boolean {
  return uri.slice(0, SCHEME.length).toLowerCase() === SCHEME;
}

/**
 * The lookup key of a URI: the scheme in lower case (`SKILL://x` is `skill://x`), each segment decoded
 * then re-encoded, so
 * `skill://a/b%20c` and `skill://a/b c` meet, and `skill://a/b/` is `skill://a/b`; an encoded slash
 * separates segments like a plain one (`skill://ops%2Fdeploy/x` is `skill://ops/deploy/x`: no name of a
 * segment holds one). A query or fragment names the same file (`skill://a/ref.md#auth` is `skill://a/ref.md`,
 * as a Markdown link to a section copied whole): a name holding `?` or `#` is written `%3F` or `%23` in
 * its URI. The URI itself for anything not under skill:// or not decodable; a `..` or empty segment stays
 * in the key and so never matches a published file (no traversal by URI).
 */
export function uriKey(uri: string): string {
  if (!isSkillUri(uri)) return uri;
  const rest = uri.slice(SCHEME.length);
  const end = rest.search(/[?#]/);
  // One trailing slash names the same folder (`skill://x/` is `skill://x`); more stay, and match nothing.
  const path = end < 0 ? rest : rest.slice(0, end);
  const segments = (path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path).split("/");
  try {
    return (
      SCHEME +
      segments
        .flatMap((s) => decodeURIComponent(s).split("/"))
        .map(encodeSegment)
        .join("/")
    );
  } catch {
    return uri;
  }
}

/**
 * The URIs of a catalog skill as the skills extension publishes them: a served skill is
 * `skill://<name>`; a shadowed one (reached by its qualified name) carries its source label
 * first, `skill://<source>/<name>`, so the two never share a URI.
 */
export function skillUris(skill: Pick<Skill, "name" | "source">, shadowed: boolean) {
  return skillRoot(shadowed ? [skill.source] : [], skill.name);
}

/**
 * A file's path under a skill from a URI the client copied, or undefined when
 * `uri` is not under `base` (another skill, another scheme). Segments are
 * decoded; the result is checked like any relative path by the caller.
 */
export function pathUnder(base: string, uri: string): string | undefined {
  const key = uriKey(uri);
  const prefix = `${uriKey(base)}/`;
  if (!key.startsWith(prefix)) return undefined;
  try {
    return key
      .slice(prefix.length)
      .split("/")
      .map((s) => decodeURIComponent(s))
      .join("/");
  } catch {
    return undefined;
  }
}
