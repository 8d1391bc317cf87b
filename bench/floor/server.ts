/**
 * The floor: the smallest useful MCP server (the SDK, stdio, one trivial tool),
 * compiled exactly like skillhub, plus `read` (return a file: the fair floor for
 * `skill`). SkillHub's figures are read against it.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const server = new McpServer({ name: "floor", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Echo the text back", inputSchema: { text: z.string() } },
  async ({ text }) => ({
    content: [{ type: "text", text }],
  }),
);
// The fair floor for `skill`: read a SKILL.md and return it, nothing more (issue 16).
server.registerTool(
  "read",
  { description: "Return a file's text", inputSchema: { path: z.string() } },
  async ({ path }) => ({
    content: [{ type: "text", text: await Bun.file(path).text() }],
  }),
);
await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
process.on("SIGTERM", () => process.exit(0));
