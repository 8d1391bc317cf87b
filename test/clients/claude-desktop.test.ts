import { describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { binary } from "../helpers/binary.ts";
import {
  CLIENT_TOKEN,
  clientFixture,
  clientHome,
  clientTools,
  clientToolsEnabled,
  printConfig,
} from "../helpers/client-tools.ts";
import { tempDir } from "../helpers/fs.ts";
import { startHttpBinary } from "../helpers/http-binary.ts";

/**
 * Claude Desktop is a desktop application with no command line to install from npm, but what its HTTP
 * snippet starts is: mcp-remote (pinned, from .tools/), the bridge from the stdio Claude Desktop speaks
 * to the shared server. Started with the snippet's own arguments and `env`, as Claude Desktop starts
 * it (`npx -y mcp-remote` being the pinned package), it must reach SkillHub with the token. Runs under
 * `make clients`.
 */
const fixture = clientFixture();

interface DesktopEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/**
 * Claude Desktop's snippet for `url`, printed with CLIENT_TOKEN set, started as Claude Desktop starts
 * it; the tools SkillHub lists through it.
 */
async function toolsThroughSnippet(url: string): Promise<string[]> {
  const c = clientHome();
  const { file } = await printConfig(
    "claude-desktop",
    ["--http", url],
    { ...c.env, SKILLHUB_HTTP_TOKEN: CLIENT_TOKEN },
    c.project,
  );
  const entry = (JSON.parse(file) as { mcpServers: Record<string, DesktopEntry> }).mcpServers.skillhub;
  if (!entry) throw new Error(`no skillhub server in:\n${file}`);
  expect([entry.command, ...entry.args.slice(0, 2)]).toEqual(["npx", "-y", "mcp-remote"]);
  // Security: no argument holds the token (any process on the machine reads another's arguments).
  expect(entry.args.join(" ")).not.toContain(CLIENT_TOKEN);
  const [node, bridge] = clientTools().mcpRemote as [string, string];
  const transport = new StdioClientTransport({
    command: node,
    args: [bridge, ...entry.args.slice(2)],
    env: { PATH: c.env.PATH as string, HOME: c.home, ...entry.env },
    cwd: "/",
    stderr: "pipe",
  });
  const client = new Client({ name: "claude-desktop-stand-in", version: "1.0.0" });
  await client.connect(transport);
  try {
    expect(client.getServerVersion()?.name).toBe("skillhub");
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

/** Whether this machine has an IPv6 loopback to listen on. */
function hasIpv6Loopback(): boolean {
  try {
    Bun.listen({ hostname: "::1", port: 0, socket: { data() {} } }).stop(true);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!clientToolsEnabled)("Claude Desktop's HTTP snippet, through mcp-remote", () => {
  test("with a token: mcp-remote reads it from the snippet's env, connects, and SkillHub's tools are listed", async () => {
    expect(await toolsThroughSnippet(fixture.server.url)).toContain("search_skills");
  });

  // mcp-remote takes http:// only to localhost and 127.0.0.1 unless told otherwise: [::1] stands in for
  // a team's server on another machine, which loopback-only tests cannot reach.
  test.skipIf(!hasIpv6Loopback())(
    "over http:// to a host mcp-remote does not take for this machine ([::1])",
    async () => {
      const server = await startHttpBinary(binary(), ["--host", "::1", "--skills-dir", fixture.skills, "--no-watch"], {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: tempDir("skillhub-client-server-"),
          SKILLHUB_HTTP_TOKEN: CLIENT_TOKEN,
        },
      });
      try {
        expect(server.url).toStartWith("http://[::1]:");
        expect(await toolsThroughSnippet(server.url)).toContain("search_skills");
      } finally {
        await server.stop();
      }
    },
  );
});
