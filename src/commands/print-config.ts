import { resolve } from "node:path";
import { CLIENTS, type Client, httpSnippets, type Launch, stdioSnippets } from "./client-configs.ts";
import type { CommandRun } from "./context.ts";

/** How this very executable is started: the compiled binary itself, or bun + src/cli.ts from a checkout. */
export function selfLaunch(): Launch {
  const compiled = Bun.main.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/i.test(Bun.main);
  return compiled ? { command: process.execPath, args: [] } : { command: process.execPath, args: [resolve(Bun.main)] };
}

/** `skillhub print-config CLIENT [--project DIR] [--http URL]`. */
export const runPrintConfig: CommandRun = async (ctx) => {
  const client = ctx.args.positionals[0];
  if (!client || !(CLIENTS as readonly string[]).includes(client)) {
    ctx.err(
      `skillhub print-config: ${client ? `unknown client "${client}"` : "name a client"}. Clients: ${CLIENTS.join(", ")}.\n`,
    );
    return 2;
  }
  const launch = selfLaunch();
  // The printed config starts the server the way this command was asked for.
  for (const dir of (ctx.args.flags["skills-dir"] as string[] | undefined) ?? [])
    launch.args.push("--skills-dir", resolve(ctx.cwd, dir));
  const project = ctx.args.flags.project as string | undefined;
  if (project) launch.args.push("--project", resolve(ctx.cwd, project));
  const tools = ctx.args.flags.tools as string | undefined;
  if (tools) launch.args.push("--tools", tools);
  const url = ctx.args.options.http;
  const snippets = url ? httpSnippets(client as Client, url) : stdioSnippets(client as Client, launch);
  ctx.out(snippets.map((s) => `# ${s.where}\n${s.text}\n`).join("\n"));
  return 0;
};
