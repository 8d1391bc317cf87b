import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { initialize } from "../helpers/http.ts";

afterAll(cleanupTemp);
const bin = binary();

/** A temp HOME with global skills and a temp project with project skills. */
function world() {
  const home = tempDir("skillhub-e2e-home-");
  const project = tempDir("skillhub-e2e-project-");
  writeSkill(join(home, ".claude", "skills"), "global-only", { description: "From the user's Claude folder" });
  writeSkill(join(project, ".agents", "skills"), "git", { description: "Git workflow" });
  writeSkill(join(project, ".claude", "skills"), "git", { description: "Shadowed git" });
  write(join(project, ".agents", "skills", "broken", "SKILL.md"), "no frontmatter here");
  const env = { PATH: process.env.PATH ?? "", HOME: home, LOG_LEVEL: "DEBUG" };
  return { home, project, env };
}

async function start(w: ReturnType<typeof world>, args: string[] = [], revision?: "2026-07-28") {
  const transport = new StdioClientTransport({ command: bin, args, env: w.env, cwd: w.project, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => (stderr += String(chunk)));
  const client = new Client(
    { name: "e2e", version: "1.0.0" },
    revision ? { versionNegotiation: { mode: { pin: revision } } } : {},
  );
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

describe("the compiled binary over stdio", () => {
  test("initialize, tools/list and the skill tool, with project before global", async () => {
    const w = world();
    const { client, stderr } = await start(w);
    expect(client.getServerVersion()?.name).toBe("skillhub");
    expect(client.getInstructions()?.length ?? 0).toBeGreaterThan(20);
    // Under 2 KB (Claude Code cuts there); a first start answers before its scan, so it names no skill yet.
    expect(Buffer.byteLength(client.getInstructions() ?? "x".repeat(4096))).toBeLessThanOrEqual(2048);
    expect(client.getInstructions()).not.toContain("- git:");
    const { tools } = await client.listTools();
    const skill = tools.find((t) => t.name === "skill");
    expect(skill?.description).toContain(
      "<name>git</name>\n<description>Git workflow</description>\n<location>project</location>",
    );
    expect(skill?.description).toContain("<name>global-only</name>");
    const result = (await client.callTool({ name: "skill", arguments: { name: "GIT" } })) as CallToolResult;
    expect(result.content[0]).toMatchObject({
      type: "text",
      text: expect.stringContaining(`Base directory: ${join(w.project, ".agents", "skills", "git")}`),
    });
    const missing = (await client.callTool({ name: "skill", arguments: { name: "gti" } })) as CallToolResult;
    expect(missing.isError).toBe(true);
    await client.close();
    expect(stderr()).toContain("no-frontmatter");
    // The next start names the served skills (seen before tool schemas are), from the catalog it kept.
    const again = await start(w);
    expect(again.client.getInstructions()).toContain("- git: Git workflow");
    await again.client.close();
  });

  test("every hub tool answers over stdio: search_skills, load_skill, read_skill_file", async () => {
    const w = world();
    write(join(w.project, ".agents", "skills", "git", "templates", "commit.txt"), "feat(scope): subject\n");
    const { client } = await start(w);
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const name of ["skill", "search_skills", "load_skill", "read_skill_file", "list_skills"])
      expect(names).toContain(name);
    const search = (await client.callTool({
      name: "search_skills",
      arguments: { query: "git workflow" },
    })) as CallToolResult;
    expect((search.structuredContent as { skills: { name: string }[] }).skills[0]?.name).toBe("git");
    const loaded = (await client.callTool({ name: "load_skill", arguments: { skill_name: "git" } })) as CallToolResult;
    expect(loaded.structuredContent).toMatchObject({
      name: "git",
      path: join(w.project, ".agents", "skills", "git"),
      files: [{ path: "templates/commit.txt", size: 21 }],
    });
    const file = (await client.callTool({
      name: "read_skill_file",
      arguments: { skill_name: "git", file_path: "templates/commit.txt" },
    })) as CallToolResult;
    expect(file.structuredContent).toEqual({
      content: "feat(scope): subject\n",
      encoding: "utf-8",
      truncated: false,
      size_bytes: 21,
    });
    const escape = (await client.callTool({
      name: "read_skill_file",
      arguments: { skill_name: "git", file_path: "../../../etc/passwd" },
    })) as CallToolResult;
    expect((escape.structuredContent as { error: { code: string } }).error.code).toBe("PATH_OUTSIDE_SKILL");
    await client.close();
  });

  test("list_skills, and the sk profile's skills.list / skills.search in profile sk", async () => {
    const w = world();
    const auto = await start(w);
    // No tree here: the default answer is an empty tree that counts the Agent Skills; flat: true lists them.
    const tree = (await auto.client.callTool({ name: "list_skills", arguments: {} })) as CallToolResult;
    expect(tree.structuredContent).toMatchObject({ tree: { children: [] }, agent_skills: 2 });
    const listed = (await auto.client.callTool({ name: "list_skills", arguments: { flat: true } })) as CallToolResult;
    expect(JSON.stringify(listed.structuredContent)).toContain('"git"');
    await auto.client.close();
    const sk = await start(w, ["--tools", "sk"]);
    expect((await sk.client.listTools()).tools.map((t) => t.name)).toEqual(["skills.list", "skills.search"]);
    const list = (await sk.client.callTool({ name: "skills.list", arguments: { query: "git" } })) as CallToolResult;
    expect((list.structuredContent as { skills: { installName: string }[] }).skills.map((s) => s.installName)).toEqual([
      "git",
    ]);
    const search = (await sk.client.callTool({
      name: "skills.search",
      arguments: { query: "git workflow" },
    })) as CallToolResult;
    expect(search.structuredContent).toMatchObject({ query: "git workflow", total: 1 });
    await sk.client.close();
  });

  test("a skill added while running loads by name on the very first call", async () => {
    const w = world();
    const { client } = await start(w);
    await client.listTools();
    writeSkill(join(w.project, ".agents", "skills"), "brand-new", { description: "Added later" });
    // No waiting for the watcher: a miss on a folder that exists rescans at once.
    const loaded = (await client.callTool({ name: "skill", arguments: { name: "brand-new" } })) as CallToolResult;
    expect(loaded.isError).toBeFalsy();
    await client.close();
  });

  test("stdout carries only JSON-RPC; stdin end and SIGTERM exit 0", async () => {
    const w = world();
    const proc = Bun.spawn([bin], { cwd: w.project, env: w.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const send = (msg: object) => proc.stdin.write(`${JSON.stringify(msg)}\n`);
    send(initialize("2025-06-18"));
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    proc.stdin.write("this is not json\n");
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "skill", arguments: { name: "git" } } });
    send({
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "skill", arguments: { name: "../../etc/passwd" } },
    });
    await proc.stdin.flush();
    proc.stdin.end();
    const code = await proc.exited;
    expect(code).toBe(0);
    const lines = (await new Response(proc.stdout).text()).trim().split("\n");
    const messages = lines.map((l) => JSON.parse(l));
    for (const m of messages) expect(m.jsonrpc).toBe("2.0");
    // The line that is not JSON gets a parse error (id null); every request is still answered.
    expect(messages.filter((m) => m.id === null).map((m) => m.error.code)).toEqual([-32700]);
    const answers = messages.filter((m) => m.id !== null);
    expect(answers.map((m) => m.id)).toEqual([1, 2, 3, 4]);
    expect(answers[3].result.isError).toBe(true);

    // SIGTERM once the server is answering (on a loaded machine start-up alone can take a while).
    const second = Bun.spawn([bin], { cwd: w.project, env: w.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    second.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } })}\n`,
    );
    await second.stdin.flush();
    const reader = second.stdout.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('"id":1');
    second.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  test("a 2026-07-28 client: no initialize, the same tools, skills/list, prompts and resources", async () => {
    const w = world();
    const { client } = await start(w, [], "2026-07-28");
    expect(client.getProtocolEra()).toBe("modern");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("skill");
    const loaded = (await client.callTool({ name: "skill", arguments: { name: "git" } })) as CallToolResult;
    expect(loaded.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("Git workflow") });
    const ext = new SkillsClient(client);
    const listing = await ext.list();
    expect(listing.skills.map((s) => s.uri)).toContain("skill://git/SKILL.md");
    const git = listing.skills.find((s) => s.uri === "skill://git/SKILL.md");
    expect((await ext.read(git as never)).verified).toBe(true);
    expect((await client.getPrompt({ name: "git" })).messages[0]?.content).toMatchObject({ type: "text" });
    await client.close();
  });
});
