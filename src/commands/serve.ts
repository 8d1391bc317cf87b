import type { Hub } from "../server/hub.ts";
import { serveStdio } from "../transports/stdio.ts";
import { ConfigError, SkillHubError } from "../util/errors.ts";
import { plural } from "../util/plural.ts";
import { program } from "../util/program-name.ts";
import { VERSION } from "../version.ts";
import { type CommandContext, type CommandRun, closeToChildren, hubFor } from "./context.ts";
import { lockAdvice, lockCommand } from "./lock-advice.ts";

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
  const targets = hub.lockTargets();
  const errors = targets.map((t) => frozen.load(t.file).error);
  const missing = targets.filter((_, i) => errors[i]?.code === "LOCK_MISSING");
  const bad = errors.findIndex((e) => e && e.code !== "LOCK_MISSING");
  const at = bad >= 0 ? bad : missing.length === errors.length ? 0 : -1;
  const error = errors[at];
  if (!error) {
    // Said once the skills are known, and only of a lock that would cover some (a teammate with no
    // personal skills has no personal lock, and needs none).
    void hub.ready.then(
      () => {
        for (const { file, scope } of missing) {
          const refused = hub.catalog.skills.filter((skill) => hub.lockTargetOf(skill).file === file).length;
          if (refused > 0)
            ctx.logger.warn(
              `frozen mode: no lock at ${file}, so ${plural(refused, "skill")} ${refused === 1 ? "is" : "are"} refused (\`${program()} list --frozen\` marks ${refused === 1 ? "it" : "them"}): review, then run \`${lockCommand(scope)}\` to write it.`,
            );
        }
      },
      () => {},
    );
    return true;
  }
  const advice = lockAdvice(hub, error, targets[at]?.file ?? hub.lockFile());
  hub.close();
  ctx.err(`skillhub: frozen mode (--frozen / SKILLHUB_FROZEN): ${advice.message}\n`);
  return false;
}
