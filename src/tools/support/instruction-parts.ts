import { readSkillFileText } from "../../catalog/skill-text.ts";
import type { Skill } from "../../skills/skill.ts";
import type { ToolContext } from "../definition.ts";
import { structuredResult } from "../results.ts";
import { resultBudget, textChars } from "./result-budget.ts";
import { fitSkillText } from "./skill-parts.ts";
import type { SkillPlace } from "./skill-place.ts";

/**
 * load_skill's answer fitted to what the client shows at once. Its text is the
 * answer as JSON, so the instructions get the room the other fields and JSON's
 * escapes leave; longer instructions are served in parts, the first ending with
 * the line on how to read the rest: an Agent Skill's from SKILL.md (offsets are
 * the file's, so the frontmatter before the body is counted in), a tree node's
 * from the files they are composed of.
 */
export function fitInstructions<T extends { instructions: string }>(
  answer: T,
  skill: Skill,
  ctx: ToolContext,
  place: SkillPlace,
): T {
  const budget = resultBudget(ctx);
  // The text a client shows is the answer's JSON as structuredResult writes it.
  const size = (value: T) => textChars(structuredResult(value));
  if (size(answer) <= budget) return answer;
  const body = answer.instructions;
  // A tree node's line names the files its instructions come from (node-continuation.ts): no offset into one.
  const file = skill.kind === "agent-skill" ? readSkillFileText(skill) : undefined;
  const front = file?.ok && file.text.endsWith(body) ? file.text.slice(0, file.text.length - body.length) : "";
  const skipBytes = Buffer.byteLength(front, "utf8");
  const skipLines = front.split("\n").length - 1;
  let room = budget - size({ ...answer, instructions: "" });
  let smallest = answer;
  for (let tries = 0; tries < 8 && room > 0; tries++) {
    const part = fitSkillText(skill, body, room, ctx, place, skipBytes, skipLines);
    const fitted = { ...answer, instructions: part.text };
    const over = size(fitted) - budget;
    if (over <= 0) return fitted;
    smallest = fitted;
    // Cut from the part itself (a cut after a line falls short of its room, so each try cuts more), as many
    // characters as carry `over` characters of JSON (a control character is written as six).
    const perChar = JSON.stringify(part.text).length / Math.max(1, part.text.length);
    room = Math.min(room, part.text.length) - Math.ceil(over / perChar);
  }
  return smallest;
}
