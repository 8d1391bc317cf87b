import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { PARSE_AHEAD_MIN } from "../../src/catalog/parse-ahead.ts";
import { WATCH_IN_WORKER_DIRS } from "../../src/refresh/watcher.ts";
import { binaryClient } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);

describe("the binary runs its worker scripts (scripts/build.ts WORKER_SCRIPTS)", () => {
  test("a first scan parses in a worker, the first index is built in one, a large folder is watched in one; skills are served and found", async () => {
    const home = tempDir("skillhub-e2e-home-");
    const skills = tempDir("skillhub-e2e-skills-");
    const count = PARSE_AHEAD_MIN + 10;
    for (let i = 0; i < count; i++)
      writeSkill(skills, `skill-${i}`, { description: `Helps with chore ${i}.`, body: `# Chore ${i}\n\nword${i}x\n` });
    // Over WATCH_IN_WORKER_DIRS folders: the watcher is set up in the watch worker.
    for (let i = 0; i < WATCH_IN_WORKER_DIRS; i++)
      mkdirSync(join(skills, "skill-0", "assets", `part-${i}`), { recursive: true });
    const { client, log } = await binaryClient(skills, home);
    const found = await client.callTool({ name: "search_skills", arguments: { query: "word137x" } });
    const hits = (found.structuredContent as { skills: { name: string }[] }).skills.map((s) => s.name);
    expect(hits[0]).toBe("skill-137");
    const loaded = await client.callTool({ name: "skill", arguments: { name: "skill-200" } });
    expect(loaded.isError).toBeFalsy();
    expect(JSON.stringify(loaded.content)).toContain("word200x");
    // A skill written now is found by search within seconds (the rescan timer is 30 s: only the watcher can).
    writeSkill(skills, "late-arrival", { description: "Arrived after start.", body: "zebrafinch\n" });
    let late: string[] = [];
    for (const end = Date.now() + 10_000; Date.now() < end && late[0] !== "late-arrival"; await Bun.sleep(100)) {
      const reply = await client.callTool({ name: "search_skills", arguments: { query: "zebrafinch" } });
      late = (reply.structuredContent as { skills: { name: string }[] }).skills.map((s) => s.name);
    }
    expect(late[0]).toBe("late-arrival");
    await client.close();
    expect(log()).toContain(`parsed ${count} SKILL.md files in a worker`);
    expect(log()).toContain("search index built in a worker");
    expect(log()).not.toContain("in a worker failed");
    expect(log()).toContain(`watching ${skills} (`);
    expect(log()).toContain("folders) in a worker");
  });
});
