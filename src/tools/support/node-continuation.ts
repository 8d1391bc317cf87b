import { effectiveChain } from "../../catalog/tree-chain.ts";
import { splitFrontmatter, stripBom } from "../../skills/frontmatter.ts";
import type { Skill } from "../../skills/skill.ts";
import { readSkillSourceBytes } from "../../skills/skill-read.ts";
import { fileText } from "../../util/file-text.ts";
import type { ToolContext } from "../definition.ts";
import { linesUpTo, resultBudget } from "./result-budget.ts";
import { type SkillPlace, skillPlace } from "./skill-place.ts";

/** A section header of a tree node's composed instructions, as catalog/tree-content.ts writes it. */
const HEADER = /^=== .* \(from (.+)\) ===$/gm;

/**
 * The line after the first part of a tree node's instructions, which are composed from its own file and,
 * inherited, its ancestors': the file the part stops in and the line of it where the rest starts, then
 * the files after it, each whole. A local client reads them with its file reader; a remote one with
 * resources/read, each file named by its path here and by its skill:// URI in what the client receives
 * (the answer's sweep gives each its URI, or a name where another file holds that URI).
 */
export function nodeContinuation(skill: Skill, text: string, end: number, ctx: ToolContext, place: SkillPlace): string {
  const headers = [...text.matchAll(HEADER)];
  const within = headers.filter((h) => h.index < end).at(-1);
  const nodes = effectiveChain(ctx.deps.store.catalog, skill);
  const byRel = (rel: string | undefined) => nodes.find((node) => node.kind === "tree-node" && node.tree.rel === rel);
  const stopped = (within ? byRel(within[1]) : undefined) ?? skill;
  const bodyStart = within ? within.index + within[0].length + 2 : 0;
  const shown = end > bodyStart ? text.slice(bodyStart, end) : "";
  const file = fileLines(stopped);
  // The line the cut falls in (the line after the part's last, when the part ends after one), and its byte.
  const from = file.front + shown.split("\n").length;
  const offset =
    (file.starts[from - 1] ?? file.size) + Buffer.byteLength(shown.slice(shown.lastIndexOf("\n") + 1), "utf8");
  const whole = headers
    .filter((h) => h.index >= end)
    .map((h) => byRel(h[1])?.file)
    .filter((path): path is string => path !== undefined);
  const then = whole.length > 0 ? `, then ${whole.join(", ")}, each whole` : "";
  let way = `your file reader: ${stopped.file} from line ${from}${then}`;
  if (place.remote) {
    const byUri = `resources/read ${stopped.file} (the whole file; this part stops before its line ${from})${then}`;
    way = ctx.hasTool?.("read_skill_file")
      ? `read_skill_file (skill_name "${skillPlace(stopped, ctx).name}", file_path "${stopped.file}", offset ${offset}), then again from each answer's next_offset until it has none, or ${byUri}`
      : byUri;
  }
  const lead = end > 0 && text[end - 1] !== "\n" ? "\n" : "";
  return `${lead}\n[SkillHub: this is the first part of ${skill.name}'s instructions, ${linesUpTo(text, end)} of ${linesUpTo(text, text.length)} lines: this client shows at most ${resultBudget(ctx)} characters of a result at once. Read the rest with ${way}.]`;
}

/**
 * A node's file as its composed instructions leave it: how many lines come before its body (the
 * frontmatter), where each line starts (bytes, a byte-order mark and carriage returns counted), its size.
 */
function fileLines(node: Skill): { front: number; starts: number[]; size: number } {
  const read = readSkillSourceBytes(node);
  if (!read.ok) return { front: 0, starts: [0], size: 0 };
  const starts = [0];
  for (let i = read.bytes.indexOf(0x0a); i >= 0; i = read.bytes.indexOf(0x0a, i + 1)) starts.push(i + 1);
  const raw = stripBom(fileText.decode(read.bytes));
  const text = raw.includes("\r") ? raw.replace(/\r\n?/g, "\n") : raw;
  const body = splitFrontmatter(text).body;
  const front = text.endsWith(body) ? linesUpTo(text, text.length - body.length) : 0;
  return { front, starts, size: read.size };
}
