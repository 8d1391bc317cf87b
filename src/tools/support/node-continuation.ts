import { effectiveChain } from "../../catalog/tree-chain.ts";
import { splitFrontmatter } from "../../skills/frontmatter.ts";
import type { Skill } from "../../skills/skill.ts";
import { readSkillSource } from "../../skills/skill-read.ts";
import type { ToolContext } from "../definition.ts";
import { linesUpTo, resultBudget } from "./result-budget.ts";
import type { SkillPlace } from "./skill-place.ts";

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
  // The line the cut falls in (the line after the part's last, when the part ends after one).
  const from = frontLines(stopped) + (end > bodyStart ? text.slice(bodyStart, end).split("\n").length - 1 : 0) + 1;
  const whole = headers
    .filter((h) => h.index >= end)
    .map((h) => byRel(h[1])?.file)
    .filter((file): file is string => file !== undefined);
  const then = whole.length > 0 ? `, then ${whole.join(", ")}, each whole` : "";
  const way = place.remote
    ? `resources/read: ${stopped.file} (the whole file; this part stops before its line ${from})${then}`
    : `your file reader: ${stopped.file} from line ${from}${then}`;
  const lead = end > 0 && text[end - 1] !== "\n" ? "\n" : "";
  return `${lead}\n[SkillHub: this is the first part of ${skill.name}'s instructions, ${linesUpTo(text, end)} of ${linesUpTo(text, text.length)} lines: this client shows at most ${resultBudget(ctx)} characters of a result at once. Read the rest with ${way}.]`;
}

/** Lines of a node's file before its body (its frontmatter), as the composed instructions leave them out. */
function frontLines(node: Skill): number {
  const read = readSkillSource(node);
  if (!read.ok) return 0;
  const text = read.text.includes("\r") ? read.text.replace(/\r\n?/g, "\n") : read.text;
  const body = splitFrontmatter(text).body;
  return text.endsWith(body) ? linesUpTo(text, text.length - body.length) : 0;
}
