import { skillTool } from "../tools/skill.ts";
import { type CommandRun, scannedHub } from "./context.ts";

/** `skillhub show NAME`: exactly what the `skill` tool returns. */
export const runShow: CommandRun = async (ctx) => {
  const name = ctx.args.positionals.join(" ").trim();
  if (name === "") {
    ctx.err("skillhub show: give a skill name, e.g. `skillhub show pdf`. `skillhub list` shows the names.\n");
    return 2;
  }
  const hub = await scannedHub(ctx);
  const result = await skillTool.handler(
    { name },
    { deps: hub, session: { clientName: () => undefined, remote: false } },
  );
  // Each content item on its own line: the skill text, then the <command-message> line.
  const text = result.content
    .map((c) => (c.type === "text" ? c.text : ""))
    .reduce((all, part) => (all === "" || all.endsWith("\n") ? all + part : `${all}\n${part}`), "");
  if (result.isError) {
    ctx.err(`${text}\n`);
    return 1;
  }
  ctx.out(text.endsWith("\n") ? text : `${text}\n`);
  return 0;
};
