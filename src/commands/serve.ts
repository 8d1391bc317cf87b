import type { Hub } from "../server/hub.ts";
import { serveStdio } from "../transports/stdio.ts";
import { ConfigError, SkillHubError } from "../util/errors.ts";
import { program } from "../util/program-name.ts";
import { VERSION } from "../version.ts";
import { type CommandContext, type CommandRun, closeToChildren, hubFor } from "./context.ts";
import { lockAdvice } from "./lock-advice.ts";

/** `skillhub [serve]`: the MCP server on stdio (default) or Streamable HTTP. Logs go to stderr. */
export const runServe: CommandRun = async (ctx) => {
  await closeToChildren(ctx);
  if (ctx.config.server.transport === "http") return runHttp(ctx);
  const hub: Hub = hubFor(ctx);
  // A server idles for hours after its big jobs: what they freed goes back to the system.
  hub.memory.enable();
  if (!frozenLockReadable(hub, ctx)) return 2;
  for (const w of ctx.configWarnings) ctx.logger.warn(`config: ${w}`);
  ctx.logger.info(
    `SkillHub ${VERSION} on stdio; project root: ${hub.projectRoot.dir ?? "(none)"} (${hub.projectRoot.how})`,
  );
  // A person at a terminal, not an MCP client: say what this is waiting for (stderr, never stdout).
  if (process.stdin.isTTY)
    ctx.err(
      `skillhub is an MCP server: it is waiting for an MCP client on stdin. Put it in your client's config (\`${program()} print-config CLIENT\`), or try \`${program()} list\`, \`${program()} doctor\` or \`${program()} --help\`. Ctrl-C stops it.\n`,
    );
  const why = await serveStdio(hub);
  ctx.logger.info(`stopping: ${why}`);
  return 0;
};

/**
 * A shared server: every client sees the same catalog, so client roots must
 * not move the project root (one client's project would become everyone's).
 */
async function runHttp(ctx: CommandContext): Promise<number> {
  const s = ctx.config.server;
  const hub: Hub = hubFor(ctx, { acceptRoots: false });
  hub.memory.enable();
  if (!frozenLockReadable(hub, ctx)) return 2;
  for (const w of ctx.configWarnings) ctx.logger.warn(`config: ${w}`);
  ctx.logger.info(
    `SkillHub ${VERSION} over Streamable HTTP; project root: ${hub.projectRoot.dir ?? "(none)"} (${hub.projectRoot.how}; client roots are ignored, --project sets it)`,
  );
  try {
    // Loaded only here: a stdio server (what MCP clients start) does not pay for HTTP and the web page.
    const { httpServeOptions, serveHttp } = await import("../transports/http.ts");
    const why = await serveHttp(hub, httpServeOptions(s));
    ctx.logger.info(`stopping: ${why}`);
    return 0;
  } catch (error) {
    hub.close();
    if (error instanceof ConfigError || !(error instanceof SkillHubError)) throw error;
    ctx.logger.error(error.message);
    return 1;
  }
}

/**
 * Frozen mode without a readable lock would refuse every skill: stop at start-up instead, saying why. A
 * lock that is not valid stops it too. One place without its lock (a project that serves nothing, beside
 * your own lock) does not: that place's skills are refused until `skillhub lock` writes it, as doctor says.
 */
function frozenLockReadable(hub: Hub, ctx: CommandContext): boolean {
  const frozen = hub.frozen;
  if (!frozen) return true;
  const errors = hub.lockTargets().map((t) => frozen.load(t.file).error);
  const missing = errors.filter((e) => e?.code === "LOCK_MISSING");
  const error = errors.find((e) => e && e.code !== "LOCK_MISSING") ?? (missing.length === errors.length && missing[0]);
  if (!error) {
    for (const e of missing)
      ctx.logger.warn(`frozen mode: ${e?.message.replace(/;.*/, "")}: the skills of its place are refused`);
    return true;
  }
  const advice = lockAdvice(hub, error);
  hub.close();
  ctx.err(`skillhub: frozen mode (--frozen / SKILLHUB_FROZEN): ${advice.message}\n`);
  return false;
}
