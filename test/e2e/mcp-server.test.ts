import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { binary, runBinary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { remoteRepo, skillText } from "../helpers/git.ts";

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

  test("a project's skillhub.yaml adds nothing to it: neither its repositories nor its folders", async () => {
    const home = tempDir("skillhub-e2e-home-");
    const project = tempDir("skillhub-e2e-project-");
    const remote = remoteRepo("team-skills", { "skills/team-only/SKILL.md": skillText("team-only") });
    writeSkill(join(project, "skills"), "bd-ready", { description: "Check bd ready" });
    writeSkill(join(project, "vendor"), "listed", { description: "In the project's sources.dirs" });
    write(join(project, "skillhub.yaml"), `git:\n  repos:\n    - ${remote.url}\nsources:\n  dirs:\n    - ./vendor\n`);
    // The repository's copy is there: serve would serve it, and list lists it.
    expect(runBinary(["sync"], project, home).code).toBe(0);
    expect(runBinary(["list"], project, home).out).toContain("team-only");
    const extra = tempDir("skillhub-e2e-extra-");
    writeSkill(extra, "extra", { description: "Named with --skills-dir" });
    const client = await start(project, home, ["mcp-server", "--skills-dir", extra]);
    const listed = await client.callTool({ name: "skills.list", arguments: {} });
    const served = (listed.structuredContent as { skills: { meta: { name: string } }[] }).skills;
    expect(served.map((s) => s.meta.name).sort()).toEqual(["bd-ready", "extra"]);
    await client.close();
    // A client's configuration that passes what mcp-server does not honour still starts it, with warnings.
    const warned = runBinary(["mcp-server", "--enable-commands", "--tools", "all"], project, home);
    expect(warned.code).toBe(0);
    expect(warned.out).toBe("");
    expect(warned.err).toContain("warning: option --enable-commands does not apply to mcp-server:");
    expect(warned.err).toContain("warning: option --tools does not apply to mcp-server:");
    expect(warned.err).toContain(`mcp-server serves no git repository, so ${remote.url} is left out`);
  });
});
