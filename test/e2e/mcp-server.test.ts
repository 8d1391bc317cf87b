import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);
const bin = binary();

/** The sk command line: `sk mcp-server [--root ./skills]`, here `skillhub mcp-server [--root DIR]`. */
async function start(project: string, home: string, args: string[]) {
  const env = { PATH: process.env.PATH ?? "", HOME: home };
  const transport = new StdioClientTransport({ command: bin, args, env, cwd: project, stderr: "pipe" });
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

describe("skillhub mcp-server over stdio", () => {
  test("default root ./skills, --root DIR; only skills.list and skills.search; no other folder", async () => {
    const home = tempDir("skillhub-e2e-home-");
    const project = tempDir("skillhub-e2e-project-");
    writeSkill(join(home, ".claude", "skills"), "global-only", { description: "Not under the root" });
    writeSkill(join(project, ".agents", "skills"), "project-only", { description: "Not under the root" });
    writeSkill(join(project, "skills"), "bd-ready", { description: "Check bd ready" });
    writeSkill(join(project, "tools", "skills"), "vendored", { description: "Under tools/skills" });
    const names = async (client: Client) => {
      const result = await client.callTool({ name: "skills.list", arguments: {} });
      return (result.structuredContent as { skills: { meta: { name: string } }[] }).skills.map((s) => s.meta.name);
    };
    const byDefault = await start(project, home, ["mcp-server"]);
    expect((await byDefault.listTools()).tools.map((t) => t.name)).toEqual(["skills.list", "skills.search"]);
    expect(await names(byDefault)).toEqual(["bd-ready"]);
    await byDefault.close();
    const rooted = await start(project, home, ["mcp-server", "--root", "tools/skills"]);
    expect(await names(rooted)).toEqual(["vendored"]);
    await rooted.close();
  });
});
