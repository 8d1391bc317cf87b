import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ENV_SETTINGS } from "../config/settings.ts";
import { isLoopbackHost } from "../transports/http-security.ts";
import { closestWord } from "../util/close-names.ts";
import { inNpxCache, isCompiled } from "../util/program-name.ts";
import { realOr } from "../util/safe-path.ts";
import {
  CLIENT_TITLES,
  CLIENTS,
  type Client,
  httpSnippets,
  type Launch,
  type Snippet,
  stdioSnippets,
  TOKEN_VARIABLE,
} from "./client-configs.ts";
import type { CommandRun } from "./context.ts";

/**
 * How this very executable is started: the compiled binary itself, or bun + src/cli.ts from a checkout.
 * Run by `npx skillhub`, the binary lies in npm's npx cache, which npm may empty at any time: the client
 * starts it the way it was started, `npx -y skillhub`.
 */
export function selfLaunch(main = Bun.main, execPath = process.execPath): Launch {
  if (!isCompiled(main)) return { command: execPath, args: [resolve(main)] };
  return inNpxCache(execPath)
    ? { command: "npx", args: ["-y", "skillhub"] }
    : { command: namedOnPath(execPath), args: [] };
}

/**
 * The `skillhub` on PATH when it is a link to this very binary (Homebrew's `bin/skillhub` leads to
 * `Cellar/skillhub/<version>/…`, which execPath names): a client's config naming the link still works
 * after an upgrade removes the old version. Else `exec` itself.
 */
export function namedOnPath(exec: string, path = process.env.PATH): string {
  const found = Bun.which("skillhub", { PATH: path ?? "" });
  return found && found !== exec && realOr(found) === realOr(exec) ? found : exec;
}

/** Flags that shape the server, given to print-config, in the order a server reads them. */
const CARRIED = [
  "skills-dir",
  "project",
  "root",
  "home",
  "tools",
  "frozen",
  "no-watch",
  "no-prompts",
  "enable-commands",
  "skip-auto-reindex",
  "log-level",
] as const;
/** Of those, the folders: the client starts the server in a folder of its own, so they go absolute. */
const FOLDERS = new Set<string>(["skills-dir", "project", "home"]);

/**
 * The printed config starts the server the way this command was asked for: every flag given that shapes
 * the server (`--frozen` included), and `--config FILE`.
 */
function serverArgs(ctx: Parameters<CommandRun>[0]): string[] {
  const args: string[] = [];
  for (const name of CARRIED) {
    const value = ctx.args.flags[name];
    if (value === true) args.push(`--${name}`);
    for (const v of typeof value === "string" ? [value] : Array.isArray(value) ? value : []) {
      const given = FOLDERS.has(name) ? resolve(ctx.cwd, String(v)) : String(v);
      // The server reads a word starting with `-` after `--root` as an option, and refuses to start: joined, it is the value.
      args.push(...(given.startsWith("-") ? [`--${name}=${given}`] : [`--${name}`, given]));
    }
  }
  if (ctx.args.options.config) args.push("--config", resolve(ctx.cwd, ctx.args.options.config));
  return args;
}

/**
 * The client a name given to print-config means: its own name in any case, or the client's name as its
 * users know it (`Gemini CLI`, `VS Code`, `claude_desktop`): spaces and underscores read as hyphens.
 */
export function clientNamed(typed: string): Client | undefined {
  const name = typed
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, "-");
  return CLIENTS.find((c) => c === name || CLIENT_TITLES[c].toLowerCase().replace(/\s+/g, "-") === name);
}

/**
 * What to suggest for a name that is no client: each client it is a part of (`claude`: Claude Code or
 * Claude Desktop; `desktop`), and the closest by spelling.
 */
function suggestion(typed: string): string {
  const name = typed.trim().toLowerCase();
  const part = CLIENTS.filter((c) => c.split("-").includes(name));
  const close = [...new Set([...part, closestWord(name, CLIENTS)])].filter((c) => c !== undefined);
  return close.length > 0 ? ` Did you mean ${close.map((c) => `'${c}'`).join(" or ")}?` : "";
}

/** `skillhub print-config CLIENT [--project DIR] [--http URL]`. */
export const runPrintConfig: CommandRun = async (ctx) => {
  // `print-config Gemini CLI`, unquoted, names one client in two words.
  const whole = ctx.args.positionals.length > 1 ? clientNamed(ctx.args.positionals.join(" ")) : undefined;
  const [typed, ...more] = whole ? [ctx.args.positionals.join(" ")] : ctx.args.positionals;
  const client = whole ?? (typed === undefined ? undefined : clientNamed(typed));
  if (!client || more.length > 0) {
    const problem =
      typed === undefined
        ? "name a client."
        : !client
          ? `unknown client "${typed}".${suggestion(typed)}`
          : `one client at a time: run it once for each of ${[typed, ...more].map((c) => `"${c}"`).join(", ")}.`;
    ctx.err(`skillhub print-config: ${problem} Clients: ${CLIENTS.join(", ")}.\n`);
    return 2;
  }
  const launch = selfLaunch();
  launch.args.push(...serverArgs(ctx));
  const url = ctx.args.options.http;
  if (url !== undefined && !isHttpUrl(url)) {
    ctx.err(
      `skillhub print-config: --http ${JSON.stringify(url)} is not an http:// or https:// URL. Give the server's MCP endpoint, e.g. --http http://127.0.0.1:8000/mcp.\n`,
    );
    return 2;
  }
  const token = ctx.config.server.token;
  const snippets = url ? httpSnippets(client, url, token) : stdioSnippets(client, launch);
  // stdout is exactly one file's content (`print-config cursor > ~/.cursor/mcp.json` works); where it goes,
  // and any alternative (a command to run instead), go to stderr.
  const file = snippets.find((s) => !s.command) ?? (snippets[0] as (typeof snippets)[number]);
  const others = snippets.filter((s) => s !== file);
  for (const other of others) ctx.err(`# ${other.where}:\n${other.text}\n`);
  // Written over an existing file, the snippet would drop its other servers and settings.
  ctx.err(`# ${others.length > 0 ? "or " : ""}merge into ${file.where}\n`);
  if (url && file.token) ctx.err(tokenNote(file.token, CLIENT_TITLES[client]));
  if (!url && isCheckoutBuild(launch.command))
    ctx.err(
      `# ${launch.command} is the build in a SkillHub checkout, which \`make clean\` removes: for everyday use, copy it to ~/.local/bin first and run print-config from that copy.\n`,
    );
  const unwritten = url ? [] : settingsLeftOut(ctx.env);
  if (unwritten.length > 0) {
    const them = unwritten.length === 1 ? "it" : "them";
    ctx.err(
      `# ${unwritten.join(", ")} ${unwritten.length === 1 ? "is" : "are"} set here but not in the snippet, and the client starts SkillHub with its own environment: add ${them} to the server's "env" in the file, or set ${them} in ~/.skillhub/config.yaml (docs/configuration.md).\n`,
    );
    // A team's repository belongs in the project, where its lock pins it for everyone, not in one user's setup.
    if (unwritten.includes("SKILLS_REPO"))
      ctx.err(
        "# for a team's repository, run `skillhub add URL` in the project: it records it in the project's skillhub.yaml, which the project's lock pins and teammates share (`skillhub add --global URL`: in yours alone).\n",
      );
  }
  if (!url && launch.command === "npx")
    ctx.err(
      "# npx fetches SkillHub again whenever npm empties its cache, and a binary on disk starts faster: for everyday use, install SkillHub (docs/install.md) and run print-config from it.\n",
    );
  // A proxy in front may serve /mcp under another prefix, so only a path not ending in /mcp is questioned.
  if (url && !/\/mcp\/?$/.test(new URL(url).pathname))
    ctx.err(
      `# SkillHub serves MCP at /mcp, and ${JSON.stringify(new URL(url).pathname)} is not it: if the URL is the server's own, use ${new URL("/mcp", url)} instead.\n`,
    );
  const remote = url !== undefined && !isLoopbackHost(new URL(url).hostname);
  // Off loopback, the server refuses any client without its token (401): say so while there is time.
  if (remote && !token)
    ctx.err(
      "# a server on another machine needs its bearer token: set SKILLHUB_HTTP_TOKEN to it and run this again, or the client gets 401 Unauthorized.\n",
    );
  // Security: plain http to another machine shows the token to anyone on the way.
  if (remote && token && new URL(url).protocol === "http:")
    ctx.err(
      "# http:// to another machine carries the token in clear text: use https:// (a TLS proxy in front of the server) unless every network on the way is trusted.\n",
    );
  ctx.out(`${file.text}\n`);
  return 0;
};

/**
 * Settings that reach this command only through the environment, which a client does not pass on
 * (Claude Desktop, started from the Dock, has none of the shell's): named so the user can carry them.
 * Secrets are left out (a shell often holds a GITHUB_TOKEN or an API key for other tools), and so are
 * the HTTP server's own settings, which a stdio snippet does not use.
 */
export function settingsLeftOut(env: Record<string, string | undefined>): string[] {
  return Object.entries(ENV_SETTINGS)
    .filter(([name, setting]) => !setting.secret && !HTTP_ONLY.has(setting.key) && env[name])
    .map(([name]) => name);
}

const HTTP_ONLY = new Set([
  "server.transport",
  "server.host",
  "server.port",
  "server.stateless",
  "server.allowed_origins",
  "server.allowed_hosts",
  "server.session_idle_minutes",
]);

/** What becomes of the token in the snippet, and what the user still has to do for it. */
export function tokenNote(
  token: NonNullable<Snippet["token"]>,
  title: string,
  platform: NodeJS.Platform = process.platform,
): string {
  switch (token) {
    case "asked":
      return `# ${title} asks for your ${TOKEN_VARIABLE} once and keeps it; the file holds no secret.\n`;
    case "inline":
      return `# this snippet holds your ${TOKEN_VARIABLE}: keep the file private.\n`;
    case "env":
      return `# the file holds no secret: ${title} reads the token from ${TOKEN_VARIABLE} in its environment. Set it where ${title} starts (${
        platform === "win32"
          ? `\`setx ${TOKEN_VARIABLE} <the server's token>\` for your user`
          : `e.g. \`export ${TOKEN_VARIABLE}=<the server's token>\` in ~/.zshrc or ~/.bashrc`
      }), then restart ${title}.\n`;
  }
}

/**
 * Whether `command` is `dist/skillhub` of a source checkout (beside its Makefile and src/cli.ts): what
 * `make run` and the README's first steps use, and a client's config would lose with `make clean`.
 */
export function isCheckoutBuild(command: string): boolean {
  const dist = dirname(command);
  if (basename(dist) !== "dist") return false;
  const root = dirname(dist);
  return existsSync(join(root, "Makefile")) && existsSync(join(root, "src", "cli.ts"));
}

/** An absolute http(s) URL with a host. */
function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}
