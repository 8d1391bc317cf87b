import type { Skill } from "../skills/skill.ts";
import { skillTool } from "../tools/skill.ts";
import { skillFiles } from "../tools/support/skill-file-list.ts";
import { lookupSkill } from "../tools/support/skill-lookup.ts";
import { alignColumns } from "../util/columns.ts";
import { program } from "../util/program-name.ts";
import { type CommandRun, scannedHub } from "./context.ts";
import { unreadSkillsNote } from "./unread-skills.ts";

/** `skillhub show NAME`: what the `skill` tool returns (its text, without the model-facing markup). */
export const runShow: CommandRun = async (ctx) => {
  const name = ctx.args.positionals.join(" ").trim();
  if (name === "") {
    ctx.err(`skillhub show: give a skill name: \`${program()} show NAME\`. \`${program()} list\` shows the names.\n`);
    return 2;
  }
  const hub = await scannedHub(ctx);
  const toolCtx = {
    deps: hub,
    session: { clientName: () => undefined, remote: false, usage: hub.usage, client: "command line" },
  };
  const result = await skillTool.handler({ name }, toolCtx);
  // The skill text only: the tool's second item, the <command-message> line, is the tool description's
  // promise to a model, markup a person reading the terminal has no use for.
  const first = result.content[0];
  const text = first?.type === "text" ? first.text : "";
  if (result.isError) {
    const unread = unreadSkillsNote(ctx.cwd, hub.catalog);
    ctx.err(`${text}\n${unread ? `${unread}\n` : ""}`);
    return 1;
  }
  ctx.out(text.endsWith("\n") ? text : `${text}\n`);
  const { skill } = await lookupSkill(name, hub);
  if (skill) ctx.out(filesNote(skill, skillFiles(skill, toolCtx)));
  return 0;
};

/**
 * The skill's other files, which its instructions may name (a model reads them with read_skill_file): an
 * Agent Skill's folder, or the assets and scripts a tree node declares.
 */
function filesNote(skill: Skill, { files, truncated }: ReturnType<typeof skillFiles>): string {
  const node = skill.kind === "tree-node";
  if (files.length === 0) return node ? "\nFiles: none declared.\n" : "\nFiles: none besides SKILL.md.\n";
  const rows = alignColumns(files.map((f) => [`  ${f.path}`, `${f.size.toLocaleString("en-US")} bytes`]));
  const title = node ? "Files it declares" : "Files besides SKILL.md";
  return `\n${title}:\n${rows.map((row) => `${row}\n`).join("")}${truncated ? "  and more.\n" : ""}`;
}
