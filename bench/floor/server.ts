/**
 * The floor: the smallest useful MCP server (the SDK, stdio, one trivial tool),
 * compiled exactly like skillhub, plus `read` (return a file: the fair floor for
 * `skill`) and, with --structured, `read_structured` (the fair floor for `load_skill`).
 * SkillHub's figures are read against it.
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
// The fair floor for `skill`: read a SKILL.md and return it, nothing more.
server.registerTool(
  "read",
  { description: "Return a file's text", inputSchema: { path: z.string() } },
  async ({ path }) => ({
    content: [{ type: "text", text: await Bun.file(path).text() }],
  }),
);
// The fair floor for `load_skill` (with --structured, so that the floor's start-up is as before): the same
// SKILL.md as structured content with its JSON text mirror, as the MCP specification asks of a tool with an
// output schema, and as SkillHub's structured tools answer.
if (process.argv.includes("--structured"))
  server.registerTool(
    "read_structured",
    // No outputSchema: the SDK would check every result against it, which SkillHub's tools do not pay.
    { description: "Return a file's text as structured content", inputSchema: { path: z.string() } },
    async ({ path }) => {
      const data = { text: await Bun.file(path).text() };
      return { content: [{ type: "text", text: JSON.stringify(data, null, 2) }], structuredContent: data };
    },
  );
await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
process.on("SIGTERM", () => process.exit(0));
