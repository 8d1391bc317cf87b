import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { GatedScanner } from "../helpers/gated-scanner.ts";
import { testHub, textOf } from "../helpers/hub.ts";
import { stdioClient } from "../helpers/stdio-client.ts";

afterAll(cleanupTemp);

// A first start (no catalog kept from a last run: a first run, CI, a fresh container) answers
// initialize before it reads any skill, lists the tools at once when the scan takes long, and stays
// correct meanwhile: calls wait for the scan, and list_changed follows it.

/** A hub over `skills` with a fresh home (nothing kept), its scans held until the test releases them. */
function firstStart(skills: string, listingWaitMs: number) {
  const scanner = new GatedScanner();
  const { hub } = testHub({ flags: { "skills-dir": [skills] }, hub: { scanner, listingWaitMs } });
  return { hub, scanner };
}

const skillTool = async (client: Awaited<ReturnType<typeof stdioClient>>["client"]) =>
  (await client.listTools()).tools.find((t) => t.name === "skill")?.description ?? "";

describe("a first start over stdio", () => {
  test("answers initialize and tools/list before the scan ends; a call by name waits for it; list_changed follows", async () => {
    const skills = tempDir("skillhub-first-skills-");
    writeSkill(skills, "invoice-parser", { description: "Parse invoices into totals" });
    const { hub, scanner } = firstStart(skills, 0);
    const s = await stdioClient(hub);
    // Answered while the scan is held: the instructions say how to find skills, naming none yet.
    expect(hub.catalogPending).toBe(true);
    const instructions = s.client.getInstructions() ?? "";
    expect(instructions).toContain("search_skills");
    expect(instructions).not.toContain("invoice-parser");
    const pending = await skillTool(s.client);
    expect(pending).toContain("SkillHub is still reading the skill folders");
    expect(pending).toContain("Any skill name works with this tool now, and search_skills finds skills by topic");
    expect(pending).not.toContain("invoice-parser");
    // Not "not found": the call is answered once the scan has read the skill.
    const call = s.client.callTool({ name: "skill", arguments: { name: "invoice-parser" } }).then((result) => ({
      result,
      afterRelease: scanner.released,
    }));
    scanner.release();
    const { result, afterRelease } = await call;
    expect(afterRelease).toBe(true);
    expect(result.isError).toBeFalsy();
    expect(textOf(result as Parameters<typeof textOf>[0])).toContain("Instructions for invoice-parser");
    await s.listChanged();
    const listed = await skillTool(s.client);
    expect(listed).toContain("<name>invoice-parser</name>");
    expect(listed).not.toContain("still reading");
    await s.close();
  });

  test("a scan that finds no skill still ends the 'still reading' listing with list_changed", async () => {
    const skills = tempDir("skillhub-first-empty-");
    mkdirSync(join(skills, "nothing-here"));
    const { hub, scanner } = firstStart(skills, 0);
    const s = await stdioClient(hub);
    expect(await skillTool(s.client)).toContain("still reading");
    scanner.release();
    await s.listChanged();
    const after = await skillTool(s.client);
    expect(after).not.toContain("still reading");
    expect(after).toContain("<available_skills>\n\n</available_skills>");
    await s.close();
  });

  test("a scan that ends within the wait: the first tools/list names the skills and nothing is announced", async () => {
    const skills = tempDir("skillhub-first-quick-");
    writeSkill(skills, "invoice-parser", { description: "Parse invoices into totals" });
    const { hub, scanner } = firstStart(skills, 600_000);
    const s = await stdioClient(hub);
    const listing = skillTool(s.client);
    scanner.release();
    const first = await listing;
    expect(first).toContain("<name>invoice-parser</name>");
    expect(first).not.toContain("still reading");
    // A list_changed would have been written before the answer to the listing that followed the scan.
    expect(s.pendingChanges()).toBe(0);
    await s.close();
  });
});
