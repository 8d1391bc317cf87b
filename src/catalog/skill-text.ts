import { basename } from "node:path";
import { skillBody } from "../skills/agent-skill.ts";
import { splitFrontmatter } from "../skills/frontmatter.ts";
import type { Skill } from "../skills/skill.ts";
import { readSkillSource, skillReadRoot } from "../skills/skill-read.ts";
import type { ConfinedFailure } from "../util/confined-read.ts";
import { readConfinedChunks } from "../util/confined-stream.ts";

/**
 * A skill's text as search reads it (the index, excerpts), through the
 * confined reader (util/confined-read.ts): inside the skill's real folder, a
 * regular file, at most 1 MiB, read once. What the tools and the web page
 * serve is read by lock/checked-read.ts, which frozen mode checks against the
 * lock.
 */

export type SkillRead = { ok: true; text: string } | ConfinedFailure;

/** The whole SKILL.md as on disk (BOM removed), or why it cannot be served. */
export function readSkillFileText(skill: Skill): SkillRead {
  const read = readSkillSource(skill);
  return read.ok ? { ok: true, text: read.text } : read;
}

/** Bytes read for a body's start beyond its characters: a usual frontmatter (a few hundred bytes) and some multi-byte text. */
const START_SLACK_BYTES = 4096;
/** A frontmatter this long still leaves a body's start in the second read (as the search index's prefix allows). */
const START_FRONTMATTER_BYTES = 16 * 1024;

/**
 * The first `chars` characters of the body (all of a shorter one), or undefined when it cannot be
 * served: what an excerpt looks at. Reads `chars` + 4 KiB first; only when that ends inside the
 * frontmatter or before `chars` characters of body (a long frontmatter, multi-byte text) reads a
 * frontmatter of 16 KiB plus 4 bytes a character (a hit's excerpt read 48 KiB, and its
 * decoding, zeroing and frontmatter split were two thirds of the read).
 */
export function readSkillBodyStart(skill: Skill, chars: number): string | undefined {
  let read = readSkillSource(skill, chars + START_SLACK_BYTES, "truncate");
  if (read.ok && read.truncated) {
    const split = splitFrontmatter(read.text);
    // A cut character decodes as one replacement character at the end: more than `chars` keeps it out.
    if (split.kind !== "unclosed" && split.body.length > chars) return split.body.slice(0, chars);
    read = readSkillSource(skill, START_FRONTMATTER_BYTES + 4 * chars, "truncate");
  }
  return read.ok ? skillBody(read.text).slice(0, chars) : undefined;
}

/** Frontmatter longer than this is not looked for when streaming (a served skill's is a few hundred bytes). */
const MAX_FRONTMATTER_CHARS = 65_536;

/**
 * The body without frontmatter, in chunks of at most 64 KiB (the search index never holds
 * a large SKILL.md whole): confined like every read, at most 1 MiB. `onText` returns false to stop
 * reading. The frontmatter is recognised as skillBody does (BOM, then `---` up to the first closing
 * `---` line). False when the file cannot be read.
 */
export function streamSkillBody(skill: Skill, onText: (text: string) => boolean): boolean {
  const root = skillReadRoot(skill);
  if (!root.ok) return false;
  const decoder = new TextDecoder("utf-8");
  // Until the frontmatter's end is known, text is held in `head` (bounded by MAX_FRONTMATTER_CHARS).
  let head: string | undefined = "";
  // skillBody drops the newlines between the frontmatter and the body; they may come in a later chunk.
  let trimLead = false;
  let more = true;
  const emit = (text: string): boolean => {
    const out = trimLead ? text.replace(/^[\r\n]+/, "") : text;
    if (out === "") return true;
    trimLead = false;
    return onText(out);
  };
  const feed = (text: string, last: boolean): boolean => {
    if (head === undefined) return emit(text);
    head += text;
    const split = headBody(head, last || head.length > MAX_FRONTMATTER_CHARS);
    if (split === undefined) return true;
    head = undefined;
    trimLead = split.afterFrontmatter;
    return emit(split.body);
  };
  const read = readConfinedChunks({ root: root.root, rootIsReal: true, file: basename(skill.file) }, (bytes) => {
    more = feed(decoder.decode(bytes, { stream: true }), false);
    return more;
  });
  if (!read.ok) return false;
  if (more) feed(decoder.decode(), true);
  return true;
}

/** The body in the start of a file (whole lines decide), or undefined while the frontmatter may still close later. */
function headBody(head: string, final: boolean): { body: string; afterFrontmatter: boolean } | undefined {
  const whole = final ? head : head.slice(0, head.lastIndexOf("\n") + 1);
  if (whole === "" && !final) return undefined;
  const split = splitFrontmatter(whole);
  if (split.kind === "unclosed" && !final) return undefined;
  return { body: split.body + head.slice(whole.length), afterFrontmatter: split.kind === "ok" };
}
