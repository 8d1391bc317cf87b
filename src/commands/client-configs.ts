/**
 * MCP client configuration snippets: one table, used by `print-config` and
 * by the README's "Connect your client" section (a test keeps them equal).
 */
export const CLIENTS = ["claude-desktop", "claude-code", "cursor", "vscode", "windsurf", "codex", "gemini"] as const;
export type Client = (typeof CLIENTS)[number];

export interface Launch {
  /** Absolute path of the executable. */
  command: string;
  args: string[];
}

export interface Snippet {
  /** Where the snippet goes. */
  where: string;
  /** Text to paste or run. */
  text: string;
  /** A command to run once instead of a file's content: print-config sends it to stderr as an alternative. */
  command?: true;
  /** The client asks for the token and keeps it: the snippet holds none. */
  asksToken?: true;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);
const tomlString = (s: string) => JSON.stringify(s);

/** Snippets for a local (stdio) server started by the client. */
export function stdioSnippets(client: Client, launch: Launch): Snippet[] {
  const entry = { command: launch.command, args: launch.args };
  switch (client) {
    case "claude-desktop":
      return [
        {
          where:
            "claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\)",
          text: json({ mcpServers: { skillhub: entry } }),
        },
      ];
    case "claude-code":
      return [
        {
          where: "run once (user scope; drop --scope user to add it to this project only)",
          text: `claude mcp add --scope user skillhub -- ${shellWords([launch.command, ...launch.args])}`,
          command: true,
        },
        {
          where: "or .mcp.json at the project root (it names paths on this machine: commit it only where they hold)",
          text: json({ mcpServers: { skillhub: entry } }),
        },
      ];
    case "cursor":
      return [
        {
          where: "~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
          text: json({ mcpServers: { skillhub: entry } }),
        },
      ];
    case "vscode":
      return [
        {
          where: ".vscode/mcp.json in a workspace (or the user mcp.json)",
          text: json({ servers: { skillhub: { type: "stdio", ...entry } } }),
        },
      ];
    case "windsurf":
      return [{ where: "~/.codeium/windsurf/mcp_config.json", text: json({ mcpServers: { skillhub: entry } }) }];
    case "codex":
      return [
        {
          where: "~/.codex/config.toml",
          text: `[mcp_servers.skillhub]\ncommand = ${tomlString(launch.command)}\nargs = [${launch.args.map(tomlString).join(", ")}]`,
        },
      ];
    case "gemini":
      return [
        {
          where:
            "~/.gemini/settings.json (or .gemini/settings.json in a project; Gemini CLI starts it in trusted folders only)",
          text: json({ mcpServers: { skillhub: entry } }),
        },
      ];
  }
}

/** VS Code's prompt for the token: asked once, kept by VS Code, never written in the workspace. */
const VSCODE_TOKEN_INPUT = {
  type: "promptString",
  id: "skillhub-token",
  description: "SkillHub token",
  password: true,
};

/**
 * Snippets for a shared server reached over Streamable HTTP. With a token
 * (SKILLHUB_HTTP_TOKEN), each carries `Authorization: Bearer <token>` in the
 * form that client reads.
 */
export function httpSnippets(client: Client, url: string, token?: string): Snippet[] {
  const auth = token ? `Bearer ${token}` : undefined;
  const headers = auth ? { headers: { Authorization: auth } } : {};
  switch (client) {
    case "claude-desktop":
      return [
        {
          where: "claude_desktop_config.json (Claude Desktop starts local servers only; mcp-remote bridges to HTTP)",
          text: json({
            mcpServers: {
              skillhub: {
                command: "npx",
                args: ["-y", "mcp-remote", url, ...(auth ? ["--header", `Authorization: ${auth}`] : [])],
              },
            },
          }),
        },
      ];
    case "claude-code":
      return [
        {
          where: "run once",
          text: `claude mcp add --transport http skillhub ${shellWords([url])}${auth ? ` --header ${shellWords([`Authorization: ${auth}`])}` : ""}`,
          command: true,
        },
        {
          // Security: a file holding the token is never one to commit.
          where: auth
            ? "or .mcp.json at the project root (it holds the token: keep it out of git)"
            : "or commit .mcp.json at the project root",
          text: json({ mcpServers: { skillhub: { type: "http", url, ...headers } } }),
        },
      ];
    case "cursor":
      return [{ where: "~/.cursor/mcp.json", text: json({ mcpServers: { skillhub: { url, ...headers } } }) }];
    case "vscode":
      // Security: a workspace's .vscode/mcp.json is often committed: VS Code asks for the token once and keeps it.
      return [
        {
          where: ".vscode/mcp.json",
          ...(auth ? { asksToken: true as const } : {}),
          text: json({
            ...(auth ? { inputs: [VSCODE_TOKEN_INPUT] } : {}),
            servers: {
              skillhub: {
                type: "http",
                url,
                ...(auth ? { headers: { Authorization: `Bearer \${input:${VSCODE_TOKEN_INPUT.id}}` } } : {}),
              },
            },
          }),
        },
      ];
    case "windsurf":
      return [
        {
          where: "~/.codeium/windsurf/mcp_config.json",
          text: json({ mcpServers: { skillhub: { serverUrl: url, ...headers } } }),
        },
      ];
    case "codex":
      return [
        {
          where: "~/.codex/config.toml",
          text: `[mcp_servers.skillhub]\nurl = ${tomlString(url)}${auth ? `\nhttp_headers = { Authorization = ${tomlString(auth)} }` : ""}`,
        },
      ];
    case "gemini":
      return [
        {
          where: "~/.gemini/settings.json (Gemini CLI connects from trusted folders only)",
          text: json({ mcpServers: { skillhub: { httpUrl: url, ...headers } } }),
        },
      ];
  }
}

/** Quote words for a POSIX shell only when they need it. */
export function shellWords(words: readonly string[]): string {
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`)).join(" ");
}
