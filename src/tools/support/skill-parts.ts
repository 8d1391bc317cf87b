import { basename } from "node:path";
import type { Skill } from "../../skills/skill.ts";
import { skillReadRoot } from "../../skills/skill-read.ts";
import type { SkillFileEntry } from "../../sources/skill-files.ts";
import { readConfined } from "../../util/confined-read.ts";
import type { ToolContext } from "../definition.ts";
import { nodeContinuation } from "./node-continuation.ts";
import { linesUpTo, partEnd, resultBudget } from "./result-budget.ts";
import { downloadAdvice } from "./skill-archive.ts";
import { exampleFile, skillFiles } from "./skill-file-list.ts";
import { fetchAdvice, type SkillPlace, skillPlace } from "./skill-place.ts";

/** Most file names the `skill` tool's answer lists for a remote client (load_skill lists them all). */
const FILES_SHOWN = 12;

/** Characters kept for the line that says how to read the rest (it is measured; this is where the cut starts). */
const CONTINUATION_ROOM = 700;

/**
 * The head of a loaded skill: the skill tool's "Loading:" and "Base directory:"
 * lines, the folder named as this client can use it; for a remote client, how
 * to fetch the files and which ones there are (named under the base URI).
 */
export function skillHead(skill: Skill, place: SkillPlace, ctx: ToolContext): string {
  const head = `Loading: ${skill.name}\nBase directory: ${place.base}\n`;
  if (!place.remote) return `${head}\n`;
  const { paths, truncated } = fetchablePaths(skill, ctx);
  const example = exampleFile(paths);
  const shown = paths.slice(0, FILES_SHOWN);
  const more = paths.length - shown.length;
  const list =
    paths.length === 0
      ? `Files: none${skill.kind === "agent-skill" ? " besides SKILL.md" : ""}.`
      : `Files under ${place.base}/: ${shown.join(", ")}${more > 0 || truncated ? `, and ${truncated ? "more" : more} more${ctx.hasTool?.("load_skill") ? " (load_skill lists them all)" : ""}` : ""}.`;
  return `${head}${fetchAdvice(skill, place, ctx, example, downloadAdvice(skill, ctx)?.text)}\n${list}\n\n`;
}

/** The files a remote client can fetch (skillFiles; `listed` when the caller has them). */
export function fetchablePaths(
  skill: Skill,
  ctx: ToolContext,
  listed?: readonly SkillFileEntry[],
): { paths: string[]; truncated: boolean } {
  const { files, truncated } = listed ? { files: listed, truncated: false } : skillFiles(skill, ctx);
  return { paths: files.map((f) => f.path), truncated };
}

/** What a skill's text becomes for one client: whole, or its first part and the line on how to read the rest. */
export interface SkillPart {
  text: string;
  /** Character offset in the whole text where the rest starts; undefined when it is whole. */
  restAt?: number;
}

/**
 * `text` (an Agent Skill's SKILL.md, or its body, which starts `skipBytes`
 * and `skipLines` into the file) fitted to `room` characters: whole when it fits, else its
 * first part, cut after a line, followed by one line saying where it stops and
 * how to read the rest: read_skill_file from the byte offset where the part
 * ends (the file is SKILL.md), the file itself for a local client, or the
 * skill:// URI. A tree node's text, composed from its file and its ancestors', is cut the same way, its
 * line naming the file and line the rest starts at (node-continuation.ts).
 */
export function fitSkillText(
  skill: Skill,
  text: string,
  room: number,
  ctx: ToolContext,
  place: SkillPlace,
  skipBytes = 0,
  skipLines = 0,
): SkillPart {
  if (text.length <= room) return { text };
  // Offsets are the file's: a byte-order mark the text was read without comes before it.
  const before = skill.kind === "agent-skill" ? skipBytes + markBytes(skill) : 0;
  let end = partEnd(text, room - CONTINUATION_ROOM);
  for (;;) {
    const line =
      skill.kind === "agent-skill"
        ? continuation(skill, text, end, ctx, place, before, skipLines)
        : nodeContinuation(skill, text, end, ctx, place);
    const over = end + line.length - room;
    if (over <= 0 || end <= 1) return { text: text.slice(0, end) + line, restAt: end };
    end = partEnd(text, end - over);
  }
}

const MARK = [0xef, 0xbb, 0xbf];

/** How many bytes of a byte-order mark start a skill's file (3 or 0): its text is read without one. */
function markBytes(skill: Skill): number {
  const root = skillReadRoot(skill);
  if (!root.ok) return 0;
  const read = readConfined({
    root: root.root,
    rootIsReal: true,
    file: basename(skill.file),
    maxBytes: MARK.length,
    overflow: "truncate",
  });
  return read.ok && MARK.every((byte, i) => read.bytes[i] === byte) ? MARK.length : 0;
}

/** The one line after a part: where it stops, how much is left, how to read the rest. */
function continuation(
  skill: Skill,
  text: string,
  end: number,
  ctx: ToolContext,
  place: SkillPlace,
  skipBytes: number,
  frontLines: number,
): string {
  const offset = skipBytes + Buffer.byteLength(text.slice(0, end), "utf8");
  const total = skipBytes + Buffer.byteLength(text, "utf8");
  const lines = linesUpTo(text, end) + frontLines;
  const ways: string[] = [];
  if (ctx.hasTool?.("read_skill_file"))
    ways.push(
      `read_skill_file (skill_name "${place.name}", file_path "SKILL.md", offset ${offset}), then again from each answer's next_offset until it has none`,
    );
  ways.push(
    place.remote
      ? `resources/read ${place.uri("SKILL.md")} (the whole file)`
      : `your file reader on ${place.file("SKILL.md")} from line ${linesUpTo(text, end) + 1 + frontLines}`,
  );
  const lead = end > 0 && text[end - 1] !== "\n" ? "\n" : "";
  return `${lead}\n[SkillHub: this is the first part of ${skill.name}'s SKILL.md, ${lines} lines, up to byte ${offset} of ${total}: this client shows at most ${resultBudget(ctx)} characters of a result at once. Read the rest with ${ways.join(", or ")}.]`;
}

/** The part of `skill`'s answer for this client, the place it names, and the budget it was fitted to. */
export function skillAnswer(skill: Skill, text: string, ctx: ToolContext, extraChars: number): string {
  const place = skillPlace(skill, ctx);
  const head = skillHead(skill, place, ctx);
  const room = resultBudget(ctx) - head.length - extraChars;
  return head + fitSkillText(skill, text, room, ctx, place).text;
}
