import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { INSTRUCTIONS_BUDGET, serverInstructions } from "../../src/server/instructions.ts";
import { createHttpHandler } from "../../src/transports/http-handler.ts";
import { pickedSkills } from "../../src/usage/picked.ts";
import { binaryClient } from "../helpers/binary.ts";
import { httpClient } from "../helpers/clients.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { testHub } from "../helpers/hub.ts";

afterAll(cleanupTemp);

function skills(count: number, extra: (i: number) => string = () => "") {
  const dir = tempDir("skillhub-instr-");
  for (let i = 0; i < count; i++)
    writeSkill(dir, `topic-${String(i).padStart(3, "0")}`, {
      description: `How do I handle topic ${i}: a long description that goes on and on about what the skill does.`,
      extra: extra(i),
    });
  return dir;
}

describe("instructions that survive tool search", () => {
  test("under 2 KB whatever the catalog; say how to find and load skills; name skills, always-apply first", async () => {
    const dir = skills(300, (i) => (i === 299 ? "metadata:\n  skillhub:\n    alwaysApply: true" : ""));
    const { hub } = testHub({ flags: { "skills-dir": [dir] } });
    void hub.start();
    await hub.ready;
    const text = serverInstructions({ tools: hub.tools().map((t) => t.name), skills: pickedSkills(hub, hub.usage) });
    hub.close();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(INSTRUCTIONS_BUDGET);
    expect(text).toContain("search_skills");
    expect(text).toContain("Load one by name with skill");
    expect(text).toContain('"how do I..."');
    expect(text.split("\n").find((l) => l.startsWith("- "))).toStartWith("- topic-299:");
    expect(text).toMatch(/\(\d+ more; search or list them\.\)$/);
  });

  test.each(["2025-06-18", "2026-07-28"] as const)(
    "a %s client sees them, naming the served skills",
    async (revision) => {
      const dir = skills(3);
      const { hub } = testHub({ flags: { "skills-dir": [dir] }, hub: { acceptRoots: false } });
      const handler = createHttpHandler(hub, { host: "127.0.0.1" });
      void hub.start();
      await hub.ready;
      const client = await httpClient(handler, revision);
      const text = client.getInstructions() ?? "";
      await client.close();
      await handler.close();
      hub.close();
      expect(text).toContain("- topic-000: How do I handle topic 0");
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(INSTRUCTIONS_BUDGET);
    },
  );
});

describe("what the instructions say", () => {
  test("search_skills takes the task in the model's own words; prompts are mentioned only when offered", async () => {
    const dir = skills(2);
    for (const [env, prompts] of [
      [{}, true],
      [{ SKILLHUB_NO_PROMPTS: "1" }, false],
    ] as const) {
      const { hub } = testHub({ flags: { "skills-dir": [dir] }, env, hub: { acceptRoots: false } });
      const handler = createHttpHandler(hub, { host: "127.0.0.1" });
      void hub.start();
      await hub.ready;
      const client = await httpClient(handler, "2025-06-18");
      const text = client.getInstructions() ?? "";
      const offered = client.getServerCapabilities()?.prompts !== undefined;
      await client.close();
      await handler.close();
      hub.close();
      expect(text).toContain("describe the task in your own words");
      expect({ offered, mentioned: /prompt/i.test(text) }).toEqual({ offered: prompts, mentioned: prompts });
    }
  });
});

describe("instructions name the skills a person uses, across sessions", () => {
  test("a skill loaded in one stdio session is named first by the next (usage kept in SKILLHUB_HOME), the snapshot's start too", async () => {
    // Sixty skills: the twelve named without history do not include topic-059.
    const dir = skills(60);
    const home = tempDir("skillhub-instr-home-");
    const named = (text: string) =>
      text
        .split("\n")
        .filter((l) => l.startsWith("- "))
        .map((l) => l.slice(2, l.indexOf(":")));
    const first = await binaryClient(dir, home);
    expect(named(first.client.getInstructions() ?? "")).not.toContain("topic-059");
    const loaded = await first.client.callTool({ name: "skill", arguments: { name: "topic-059" } });
    expect(loaded.isError).toBeFalsy();
    await first.client.close();
    const usage = JSON.parse(readFileSync(join(home, ".skillhub", "usage.json"), "utf8"));
    expect(Object.keys(usage.skills)).toEqual([expect.stringMatching(/:topic-059$/)]);
    // The second start answers initialize from the first one's catalog snapshot; the third after a scan.
    for (const run of ["second start", "third start"]) {
      const next = await binaryClient(dir, home);
      expect({ run, first: named(next.client.getInstructions() ?? "")[0] }).toEqual({ run, first: "topic-059" });
      await next.client.close();
    }
  });
});
