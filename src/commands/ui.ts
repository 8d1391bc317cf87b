import { httpServeOptions, startHttpServer } from "../transports/http.ts";
import { ConfigError, SkillHubError } from "../util/errors.ts";
import { type CommandRun, closeToChildren, hubFor } from "./context.ts";

/**
 * How `--open` starts the user's browser, per platform; injectable for tests. `failed` is called with why
 * when no browser could be started (no opener on PATH, or it exited with an error), later for the latter.
 */
export type OpenUrl = (url: string, failed: (why: string) => void) => void;

function defaultOpener(platform = process.platform): OpenUrl {
  const command = platform === "darwin" ? ["open"] : platform === "win32" ? ["cmd", "/c", "start", '""'] : ["xdg-open"];
  const name = command[0] as string;
  return (url, failed) => {
    // No shell: the URL is one argument.
    let proc: ReturnType<typeof Bun.spawn>;
    try {
      proc = Bun.spawn([...command, url], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
      failed(missing ? `${name} is not on PATH` : `${name}: ${(error as Error).message}`);
      return;
    }
    proc.unref();
    void proc.exited.then((code) => {
      if (code !== 0) failed(`${name} exited with code ${code}`);
    });
  };
}

export interface UiCommandOptions {
  open?: OpenUrl;
  /** Signals that stop the server. Default SIGINT, SIGTERM. */
  signals?: readonly NodeJS.Signals[];
  /** Called with the page's URL once it listens (tests). */
  onListening?: (url: string) => void;
  /** Resolves to stop the server instead of a signal (tests). */
  until?: Promise<unknown>;
}

/**
 * `skillhub ui [--open] [--host ADDR] [--port N]`: the page for the current project on this
 * machine. The same HTTP server as `serve --transport http` (the page at /,
 * MCP at /mcp) on 127.0.0.1 and a free port unless --port is given; the URL
 * goes to stdout, logs to stderr.
 */
export function uiCommand(options: UiCommandOptions = {}): CommandRun {
  return async (ctx) => {
    const s = ctx.config.server;
    // Its MCP endpoint runs scripts as serve's does.
    await closeToChildren(ctx);
    const hub = hubFor(ctx, { acceptRoots: false });
    for (const w of ctx.configWarnings) ctx.logger.warn(`config: ${w}`);
    let running: ReturnType<typeof startHttpServer>;
    try {
      running = startHttpServer(hub, {
        ...httpServeOptions(s),
        // A fixed default port would collide with a running `serve --transport http`; the OS picks one.
        port: ctx.args.flags.port === undefined ? 0 : s.port,
        // Not ui's setting (nor its --stateless): its MCP endpoint keeps sessions, as serve does by default.
        stateless: false,
      });
    } catch (error) {
      hub.close();
      if (error instanceof ConfigError || !(error instanceof SkillHubError)) throw error;
      ctx.logger.error(error.message);
      return 1;
    }
    void hub.start();
    const url = running.url.replace(/\/mcp$/, "/");
    ctx.out(`SkillHub page: ${url}\n`);
    ctx.logger.info(
      `serving the page for project ${hub.projectRoot.dir ?? "(none)"} at ${url} (MCP at ${running.url}); press Ctrl-C to stop.`,
    );
    // A browser that does not open is said, with what to do: the URL above is all the user has then.
    if (ctx.args.options.open)
      (options.open ?? defaultOpener())(url, (why) =>
        ctx.err(`skillhub ui: could not open a browser (${why}): open the URL above.\n`),
      );
    options.onListening?.(url);
    const signals = options.signals ?? (["SIGINT", "SIGTERM"] as const);
    let onSignal: (signal: NodeJS.Signals) => void = () => undefined;
    const stopped = new Promise<string>((resolve) => {
      onSignal = resolve;
      for (const signal of signals) process.on(signal, onSignal);
    });
    const why = await Promise.race([stopped, options.until?.then(() => "stopped") ?? new Promise<never>(() => {})]);
    for (const signal of signals) process.off(signal, onSignal);
    await running.stop();
    await hub.shutdown();
    ctx.logger.info(`stopping: ${why}`);
    return 0;
  };
}

export const runUi: CommandRun = uiCommand();
