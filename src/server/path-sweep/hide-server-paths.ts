import { shownArg } from "../../util/shown-arg.ts";
import type { ServerPaths } from "../server-paths.ts";
import { hideInText, mayHoldPath } from "./sweep-text.ts";

/**
 * What an answer holds, and so what of it is swept: "answer", anything SkillHub or a program says (every
 * path of the server: its folders named, any other path `<server path>`), but for the skill's own words it
 * carries (SKILL_WORDS: a description, an excerpt), where only the folders are named; "page", the web
 * page's answers for a client, swept as an "answer", a file's text (`text`) among a skill's words; "file",
 * a file's own bytes in its `content` field (read_skill_file, get_asset), served as they are, as
 * resources/read serves them: their size and digest must stay the file's; "skill", a skill's own text
 * (skill, load_skill, get_skill, prompts): a path into a skill becomes its URI, and any other path is the
 * author's, written for the agent's machine (`/tmp/shot.png`), and is kept as the skill's files have it
 * (read_skill_file serves the same words).
 */
export type SweepKind = "answer" | "page" | "file" | "skill";

/**
 * Security: a tool or prompt result for a client on another machine, with every
 * path of this server replaced. The core tools name a skill's files by skill://
 * URI themselves; this is the one place that makes it true of every answer (a
 * listing's file field, a script's output, a message from a lower layer).
 * Text and structured content alike; the result's shape is kept: a text that is
 * the JSON of the structured content is written again from the swept content,
 * so its escapes stay whole. An error result is an "answer", whatever `kind` says.
 */
export function hideServerPaths<T>(result: T, paths: ServerPaths, kind: SweepKind = "answer"): T {
  const sweptKind = (result as { isError?: unknown }).isError === true ? "answer" : kind;
  if (!mayHoldPath(JSON.stringify(result), paths, sweptKind !== "skill")) return result;
  const swept = sweep(result, paths, sweptKind) as T;
  const before = result as { content?: unknown; structuredContent?: unknown };
  const after = swept as { content?: unknown; structuredContent?: unknown };
  if (before.structuredContent === undefined || !Array.isArray(before.content) || !Array.isArray(after.content))
    return swept;
  const pretty = JSON.stringify(before.structuredContent, null, 2);
  const compact = JSON.stringify(before.structuredContent);
  before.content.forEach((item: { text?: unknown }, i) => {
    const text = item?.text;
    if (text !== pretty && text !== compact) return;
    (after.content as { text?: string }[])[i] = {
      ...(after.content as object[])[i],
      text: JSON.stringify(after.structuredContent, null, text === pretty ? 2 : undefined),
    };
  });
  return swept;
}

/**
 * Security: a caller's string as an error sent to a client on another machine quotes it, where no answer's
 * sweep follows (a protocol error): its paths of this server hidden while whole (each becomes its file's URI
 * or its folder's name), then cut short as shownArg cuts it (a cut leaves no path, whole or not).
 */
export function shownHidden(text: string, paths: ServerPaths): string {
  return shownArg(hideServerPaths(text, paths));
}

/**
 * Where a file's answer holds the file's own bytes: its text (`content`), or its base64 (`content_base64`,
 * and an image block's `data`), whose letters and slashes can spell a folder's path by chance.
 */
const FILE_BYTES = new Set(["content", "content_base64", "data"]);

/**
 * Where an answer carries a skill's own words (its description, tags, frontmatter, body, an excerpt of it):
 * their keys, the values under them however nested. The author's paths there are kept (as SweepKind "skill"
 * keeps them), the server's folders named. The page's file view carries a file's text as `text` too.
 */
const SKILL_WORDS = new Set([
  "description",
  "tags",
  "keywords",
  "category",
  "frontmatter",
  "body",
  "excerpt",
  "markdown",
]);

const PAGE_SKILL_WORDS = new Set([...SKILL_WORDS, "text"]);

/** `own`: `value` is (in) a skill's own words. */
function sweep(value: unknown, paths: ServerPaths, kind: SweepKind, key?: string, own = false): unknown {
  const words =
    own || kind === "skill" || (key !== undefined && (kind === "page" ? PAGE_SKILL_WORDS : SKILL_WORDS).has(key));
  if (typeof value === "string")
    return kind === "file" && key !== undefined && FILE_BYTES.has(key)
      ? value
      : hideInText(value, paths, kind === "skill", !words);
  if (Array.isArray(value)) return value.map((item) => sweep(item, paths, kind, undefined, words));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sweep(v, paths, kind, k, words)]));
}
