import { afterAll, describe, expect, test } from "bun:test";
import { INSTRUCTIONS_BUDGET, serverInstructions } from "../../src/server/instructions.ts";
import { createHttpHandler } from "../../src/transports/http-handler.ts";
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
    const text = serverInstructions({
      tools: hub.tools().map((t) => t.name),
      skills: hub.catalog.skills,
      usage: hub.usage,
    });
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
