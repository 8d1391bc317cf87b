import { Hub } from "../server/hub.ts";
import { serveStdio } from "../transports/stdio.ts";
import { VERSION } from "../version.ts";
import type { CommandRun } from "./context.ts";

/** `skillhub [serve]`: the MCP server. Logs go to stderr; stdout is the protocol. */
export const runServe: CommandRun = async (ctx) => {
  const hub = new Hub({ config: ctx.config, logger: ctx.logger, env: ctx.env, homeDir: ctx.homeDir, cwd: ctx.cwd });
  for (const w of ctx.configWarnings) ctx.logger.warn(`config: ${w}`);
  ctx.logger.info(`SkillHub ${VERSION} on stdio; project root: ${hub.projectRoot.dir ?? "(none)"} (${hub.projectRoot.how})`);
  const why = await serveStdio(hub);
  ctx.logger.info(`stopping: ${why}`);
  return 0;
};
