import { afterAll, describe, expect, test } from "bun:test";
import { PARSE_AHEAD_MIN } from "../../src/catalog/parse-ahead.ts";
import { binaryClient } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { eventually } from "../helpers/hub.ts";

afterAll(cleanupTemp);

describe("the binary runs its worker scripts (scripts/build.ts WORKER_SCRIPTS)", () => {
  test("a first scan parses in a worker and the first index is built in one; skills are served and found", async () => {
    const home = tempDir("skillhub-e2e-home-");
    const skills = tempDir("skillhub-e2e-skills-");
    const count = PARSE_AHEAD_MIN + 10;
    for (let i = 0; i < count; i++)
      writeSkill(skills, `skill-${i}`, { description: `Helps with chore ${i}.`, body: `# Chore ${i}\n\nword${i}x\n` });
    const { client, log } = await binaryClient(skills, home);
    const found = await client.callTool({ name: "search_skills", arguments: { query: "word137x" } });
    const hits = (found.structuredContent as { skills: { name: string }[] }).skills.map((s) => s.name);
    expect(hits[0]).toBe("skill-137");
    const loaded = await client.callTool({ name: "skill", arguments: { name: "skill-200" } });
    expect(loaded.isError).toBeFalsy();
    expect(JSON.stringify(loaded.content)).toContain("word200x");
    // A skill written now is found by search (polled until then: the watch on its source folder sees it).
    writeSkill(skills, "late-arrival", { description: "Arrived after start.", body: "zebrafinch\n" });
    await eventually(async () => {
      const reply = await client.callTool({ name: "search_skills", arguments: { query: "zebrafinch" } });
      return (reply.structuredContent as { skills: { name: string }[] }).skills[0]?.name === "late-arrival";
    });
    await client.close();
    expect(log()).toContain(`parsed ${count} SKILL.md files in a worker`);
    expect(log()).toContain("search index built in a worker");
    expect(log()).not.toContain("in a worker failed");
  });
});
