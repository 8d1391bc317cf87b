import { skillTool } from "../tools/skill.ts";
import { type CommandRun, scannedHub } from "./context.ts";
import { unreadSkillsNote } from "./unread-skills.ts";

/** `skillhub show NAME`: what the `skill` tool returns (its text, without the model-facing markup). */
export const runShow: CommandRun = async (ctx) => {
  const name = ctx.args.positionals.join(" ").trim();
  if (name === "") {
    ctx.err("skillhub show: give a skill name: `skillhub show NAME`. `skillhub list` shows the names.\n");
    return 2;
  }
  const hub = await scannedHub(ctx);
  const result = await skillTool.handler(
    { name },
    {
      deps: hub,
      session: { clientName: () => undefined, remote: false },
    },
  );
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
  return 0;
};
