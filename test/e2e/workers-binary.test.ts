import { afterAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { PARSE_AHEAD_MIN } from "../../src/catalog/parse-ahead.ts";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);

describe("the binary runs its worker scripts (scripts/build.ts WORKER_SCRIPTS)", () => {
  test("a first scan parses in a worker and the first index is built in one; skills are served and found", async () => {
    const home = tempDir("skillhub-e2e-home-");
    const skills = tempDir("skillhub-e2e-skills-");
    const count = PARSE_AHEAD_MIN + 10;
    for (let i = 0; i < count; i++)
      writeSkill(skills, `skill-${i}`, { description: `Helps with chore ${i}.`, body: `# Chore ${i}\n\nword${i}x\n` });
    const transport = new StdioClientTransport({
      command: binary(),
      args: ["--skills-dir", skills],
      env: { PATH: process.env.PATH ?? "", HOME: home, LOG_LEVEL: "DEBUG" },
      cwd: home,
      stderr: "pipe",
    });
    let log = "";
    transport.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
    const client = new Client({ name: "e2e", version: "1.0.0" });
    await client.connect(transport);
    const found = await client.callTool({ name: "search_skills", arguments: { query: "word137x" } });
    const hits = (found.structuredContent as { skills: { name: string }[] }).skills.map((s) => s.name);
    expect(hits[0]).toBe("skill-137");
    const loaded = await client.callTool({ name: "skill", arguments: { name: "skill-200" } });
    expect(loaded.isError).toBeFalsy();
    expect(JSON.stringify(loaded.content)).toContain("word200x");
    await client.close();
    expect(log).toContain(`parsed ${count} SKILL.md files in a worker`);
    expect(log).toContain("search index built in a worker");
    expect(log).not.toContain("in a worker failed");
  });
});
