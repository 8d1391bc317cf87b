import { shellWords } from "../util/shell-words.ts";

/**
 * MCP client configuration snippets: one table, used by `print-config` and
 * by the README's "Connect your client" section (a test keeps them equal).
 */
export const CLIENTS = ["claude-desktop", "claude-code", "cursor", "vscode", "windsurf", "codex", "gemini"] as const;
export type Client = (typeof CLIENTS)[number];

/** Each client's name as its users know it. */
export const CLIENT_TITLES: Record<Client, string> = {
  "claude-desktop": "Claude Desktop",
  "claude-code": "Claude Code",
  cursor: "Cursor",
  vscode: "VS Code",
  windsurf: "Windsurf",
  codex: "Codex",
  gemini: "Gemini CLI",
};

export interface Launch {
  /** Absolute path of the executable. */
  command: string;
  args: string[];
}

export interface Snippet {
  /** Where the snippet goes (a file), or when to run it (a command). */
  where: string;
  /** Text to paste or run. */
  text: string;
  /** A command to run once instead of a file's content: print-config sends it to stderr as an alternative. */
  command?: true;
  /**
   * How the snippet of a server with a token carries it: `asked`, the client asks once and keeps it;
   * `env`, the client reads it from TOKEN_VARIABLE in its own environment; `inline`, the text holds it.
   */
  token?: "asked" | "env" | "inline";
}

const json = (value: unknown) => JSON.stringify(value, null, 2);
const tomlString = (s: string) => JSON.stringify(s);

const CURSOR_CONFIG = "~/.cursor/mcp.json (or .cursor/mcp.json in a project)";
const VSCODE_CONFIG =
  ".vscode/mcp.json in a workspace (or your user mcp.json, which the Command Palette's MCP: Open User Configuration opens)";

/** Where Claude Code's `claude mcp add` goes: unlike Gemini CLI's and Codex's, it refuses a name it has already. */
const CLAUDE_ADD =
  "run once (user scope; drop --scope user to add it to this project only; to change it later, `claude mcp remove skillhub` first)";

/** Snippets for a local (stdio) server started by the client. */
export function stdioSnippets(client: Client, launch: Launch): Snippet[] {
  const entry = { command: launch.command, args: launch.args };
  switch (client) {
    case "claude-desktop":
      return [
        {
          where:
            "claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\; there is no Linux build)",
          text: json({ mcpServers: { skillhub: entry } }),
        },
      ];
    case "claude-code":
      return [
        {
          where: CLAUDE_ADD,
          text: `claude mcp add --scope user skillhub ${shellWords(["--", launch.command, ...launch.args])}`,
          command: true,
        },
        {
          where:
            ".mcp.json at the project root (it names paths on this machine: commit it only where they hold); Claude Code asks to approve it at its next start",
          text: json({ mcpServers: { skillhub: entry } }),
        },
      ];
    case "cursor":
      return [
        {
          where: CURSOR_CONFIG,
          text: json({ mcpServers: { skillhub: entry } }),
        },
      ];
    case "vscode":
      return [
        {
          where: VSCODE_CONFIG,
          text: json({ servers: { skillhub: { type: "stdio", ...entry } } }),
        },
      ];
    case "windsurf":
      return [{ where: "~/.codeium/windsurf/mcp_config.json", text: json({ mcpServers: { skillhub: entry } }) }];
    case "codex":
      // `codex mcp add` writes this very table into config.toml, beside what the file already holds.
      return [
        {
          where: `~/.codex/config.toml. ${CODEX_LIST}`,
          text: `[mcp_servers.skillhub]\ncommand = ${tomlString(launch.command)}\nargs = [${launch.args.map(tomlString).join(", ")}]`,
        },
        {
          where: "run once",
          text: `codex mcp add skillhub ${shellWords(["--", launch.command, ...launch.args])}`,
          command: true,
        },
      ];
    case "gemini":
      // Gemini CLI writes settings.json itself (the sign-in method, after the first start): `gemini mcp add`
      // merges the server into it. It passes the options after the command on to the server, and takes
      // no `--` there.
      return [
        {
          where: "run once (user scope; drop --scope user to add it to this project only)",
          text: `gemini mcp add --scope user skillhub ${shellWords([launch.command, ...launch.args])}`,
          command: true,
        },
        {
          where: `~/.gemini/settings.json (or .gemini/settings.json in a project). ${GEMINI_TRUST}`,
          text: json({ mcpServers: { skillhub: entry } }),
        },
      ];
  }
}

/** What `codex mcp list` shows of a local server: Codex signs in to none, so Auth is no problem. */
const CODEX_LIST = "`codex mcp list` then shows it enabled, with Auth Unsupported: a local server needs no sign-in";

/** What Gemini CLI asks before it starts a configured server. */
const GEMINI_TRUST =
  'Gemini CLI starts it only in a folder you trust: the first `gemini` there asks (or list the folder in ~/.gemini/trustedFolders.json: {"/path/to/folder": "TRUST_FOLDER"}); until then `gemini mcp list` says Disabled';

/** VS Code's prompt for the token: asked once, kept by VS Code, never written in the workspace. */
const VSCODE_TOKEN_INPUT = {
  type: "promptString",
  id: "skillhub-token",
  description: "SkillHub token",
  password: true,
};

/**
 * The variable a client reads the server's token from where it can read one from its environment: the
 * server's own name for it, so one `export` serves `skillhub serve` and every client on the machine.
 */
export const TOKEN_VARIABLE = "SKILLHUB_HTTP_TOKEN";

/**
 * Where mcp-remote, in Claude Desktop's snippet, finds the whole header value. One argument with no
 * space in it: Claude Desktop on Windows splits arguments at spaces when it starts npx.
 */
const MCP_REMOTE_HEADER_VARIABLE = "SKILLHUB_AUTHORIZATION";

/**
 * Whether mcp-remote refuses `url` unless given --allow-http: it takes http:// only to `localhost` and
 * `127.0.0.1`. The user chose http:// (every other client takes it as given); print-config warns about
 * a token sent that way.
 */
function mcpRemoteRefuses(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return protocol === "http:" && hostname !== "localhost" && hostname !== "127.0.0.1";
}

/**
 * Snippets for a shared server reached over Streamable HTTP. With a token (`token` given: the value
 * of SKILLHUB_HTTP_TOKEN), each sends `Authorization: Bearer <token>` in the form that client reads,
 * and, wherever the client can, keeps the token itself out of the file (see Snippet.token).
 */
export function httpSnippets(client: Client, url: string, token?: string): Snippet[] {
  const bearer = `Bearer \${${TOKEN_VARIABLE}}`;
  switch (client) {
    case "claude-desktop":
      // Security: Claude Desktop expands no variable in its file, and an app started from the Dock or
      // Start menu has no shell's environment: the token lives in the file, in the server's `env` (mcp-remote
      // expands it), never in an argument that every process on the machine can read.
      return [
        {
          where: "claude_desktop_config.json (Claude Desktop starts local servers only; mcp-remote bridges to HTTP)",
          ...(token ? { token: "inline" as const } : {}),
          text: json({
            mcpServers: {
              skillhub: {
                command: "npx",
                args: [
                  "-y",
                  "mcp-remote",
                  url,
                  ...(token ? ["--header", `Authorization:\${${MCP_REMOTE_HEADER_VARIABLE}}`] : []),
                  ...(mcpRemoteRefuses(url) ? ["--allow-http"] : []),
                ],
                ...(token ? { env: { [MCP_REMOTE_HEADER_VARIABLE]: `Bearer ${token}` } } : {}),
              },
            },
          }),
        },
      ];
    case "claude-code":
      // Claude Code expands ${VAR} in a server's headers, in .mcp.json and in what `claude mcp add` stores.
      return [
        {
          where: CLAUDE_ADD,
          text: `claude mcp add --scope user --transport http skillhub ${shellWords([url])}${token ? ` --header ${shellWords([`Authorization: ${bearer}`])}` : ""}`,
          command: true,
          ...(token ? { token: "env" as const } : {}),
        },
        {
          where:
            ".mcp.json at the project root (commit it: it holds no secret); Claude Code asks to approve it at its next start",
          ...(token ? { token: "env" as const } : {}),
          text: json({
            mcpServers: { skillhub: { type: "http", url, ...(token ? { headers: { Authorization: bearer } } : {}) } },
          }),
        },
      ];
    case "cursor":
      return [
        {
          where: CURSOR_CONFIG,
          ...(token ? { token: "env" as const } : {}),
          text: json({
            mcpServers: {
              skillhub: { url, ...(token ? { headers: { Authorization: `Bearer \${env:${TOKEN_VARIABLE}}` } } : {}) },
            },
          }),
        },
      ];
    case "vscode":
      // Security: a workspace's .vscode/mcp.json is often committed: VS Code asks for the token once and keeps it.
      return [
        {
          where: VSCODE_CONFIG,
          ...(token ? { token: "asked" as const } : {}),
          text: json({
            ...(token ? { inputs: [VSCODE_TOKEN_INPUT] } : {}),
            servers: {
              skillhub: {
                type: "http",
                url,
                ...(token ? { headers: { Authorization: `Bearer \${input:${VSCODE_TOKEN_INPUT.id}}` } } : {}),
              },
            },
          }),
        },
      ];
    case "windsurf":
      return [
        {
          where: "~/.codeium/windsurf/mcp_config.json",
          ...(token ? { token: "env" as const } : {}),
          text: json({
            mcpServers: {
              skillhub: {
                serverUrl: url,
                ...(token ? { headers: { Authorization: `Bearer \${env:${TOKEN_VARIABLE}}` } } : {}),
              },
            },
          }),
        },
      ];
    case "codex":
      // Codex sends `Authorization: Bearer <the variable's value>`; its `bearer_token` key (the token itself) is refused.
      return [
        {
          where: "~/.codex/config.toml",
          ...(token ? { token: "env" as const } : {}),
          text: `[mcp_servers.skillhub]\nurl = ${tomlString(url)}${token ? `\nbearer_token_env_var = ${tomlString(TOKEN_VARIABLE)}` : ""}`,
        },
        {
          where: "run once",
          text: `codex mcp add skillhub --url ${shellWords([url])}${token ? ` --bearer-token-env-var ${TOKEN_VARIABLE}` : ""}`,
          command: true,
          ...(token ? { token: "env" as const } : {}),
        },
      ];
    case "gemini":
      // Gemini CLI expands $VAR and ${VAR} in every string of its settings files.
      return [
        {
          where: "run once (user scope; drop --scope user to add it to this project only)",
          text: `gemini mcp add --scope user --transport http skillhub ${shellWords([url])}${token ? ` --header ${shellWords([`Authorization: ${bearer}`])}` : ""}`,
          command: true,
          ...(token ? { token: "env" as const } : {}),
        },
        {
          where: `~/.gemini/settings.json. ${GEMINI_TRUST}`,
          ...(token ? { token: "env" as const } : {}),
          text: json({
            mcpServers: { skillhub: { httpUrl: url, ...(token ? { headers: { Authorization: bearer } } : {}) } },
          }),
        },
      ];
  }
}
