import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { eventually } from "../helpers/wait.ts";

afterAll(cleanupTemp);
const bin = binary();

async function instructionsOf(skills: string, home: string): Promise<string> {
  const env = { PATH: process.env.PATH ?? "", HOME: home };
  const transport = new StdioClientTransport({ command: bin, args: ["--skills-dir", skills], env, cwd: home });
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(transport);
  const text = client.getInstructions() ?? "";
  // A call waits for the scan, whose catalog is then kept for the next start.
  await client.callTool({ name: "list_skills", arguments: {} });
  await client.close();
  return text;
}

describe("the catalog is kept for the next start", () => {
  test("a run keeps a snapshot beside the index; the next one's instructions name its skills", async () => {
    const home = tempDir("skillhub-e2e-home-");
    const skills = tempDir("skillhub-e2e-skills-");
    writeSkill(skills, "invoice-parser", { description: "Parse invoices into totals" });
    // A first start answers initialize before it has read any skill: it says how to find them, naming none.
    const first = await instructionsOf(skills, home);
    expect(first).toContain("search_skills");
    expect(first).not.toContain("invoice-parser");
    const index = join(home, ".skillhub", "index");
    const kept = readdirSync(index).filter((f) => f.startsWith("catalog-") && f.endsWith(".json"));
    expect(kept).toHaveLength(1);
    const header = JSON.parse(readFileSync(join(index, kept[0] as string), "utf8").split("\n")[0] as string) as {
      named: { name: string }[];
    };
    expect(header.named.map((s) => s.name)).toEqual(["invoice-parser"]);
    // The second start answers initialize with the kept names (or the scanned ones, when the scan won).
    expect(await instructionsOf(skills, home)).toContain("- invoice-parser: Parse invoices into totals");
  });
});

describe("a second start of the binary lists from the snapshot, then follows the disk", () => {
  test("skills added between runs arrive (list_changed when the snapshot's list came first)", async () => {
    const home = tempDir("skillhub-e2e-home-");
    const skills = tempDir("skillhub-e2e-skills-");
    writeSkill(skills, "invoice-parser", { description: "Parse invoices into totals" });
    await instructionsOf(skills, home);
    writeSkill(skills, "pdf-tools", { description: "Fill PDF forms" });
    const env = { PATH: process.env.PATH ?? "", HOME: home, LOG_LEVEL: "DEBUG" };
    const transport = new StdioClientTransport({
      command: bin,
      args: ["--skills-dir", skills],
      env,
      cwd: home,
      stderr: "pipe",
    });
    let log = "";
    transport.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
    const client = new Client({ name: "e2e", version: "1.0.0" });
    let changed = false;
    client.setNotificationHandler("notifications/tools/list_changed", async () => {
      changed = true;
    });
    await client.connect(transport);
    const first = JSON.stringify((await client.listTools()).tools);
    expect(first).toContain("invoice-parser");
    // Either the scan won the race (the first list has pdf-tools) or the snapshot's list came first and
    // list_changed follows: both end with pdf-tools listed.
    if (!first.includes("pdf-tools")) {
      await eventually(() => changed);
    }
    expect(JSON.stringify((await client.listTools()).tools)).toContain("pdf-tools");
    await client.close();
    expect(log).toContain("catalog snapshot: 1 skills listed until the first scan ends");
  });
});

describe("a first start of the binary (nothing kept from a last run)", () => {
  test("a skill called by name right after initialize loads; the listing names the skills, or says it is still reading them until list_changed", async () => {
    const home = tempDir("skillhub-e2e-home-");
    const skills = tempDir("skillhub-e2e-skills-");
    for (let i = 0; i < 50; i++) writeSkill(skills, `helper-${i}`, { description: `Helps with chore ${i}` });
    const env = { PATH: process.env.PATH ?? "", HOME: home };
    const transport = new StdioClientTransport({ command: bin, args: ["--skills-dir", skills], env, cwd: home });
    const client = new Client({ name: "e2e", version: "1.0.0" });
    let changed = false;
    client.setNotificationHandler("notifications/tools/list_changed", async () => {
      changed = true;
    });
    await client.connect(transport);
    const [listed, called] = await Promise.all([
      client.listTools(),
      client.callTool({ name: "skill", arguments: { name: "helper-42" } }),
    ]);
    expect(called.isError).toBeFalsy();
    expect(JSON.stringify(called.content)).toContain("Instructions for helper-42");
    const first = listed.tools.find((t) => t.name === "skill")?.description ?? "";
    if (first.includes("still reading")) {
      const end = Date.now() + 20_000;
      while (!changed && Date.now() < end) await Bun.sleep(10);
      expect(changed).toBe(true);
    } else expect(first).toContain("<name>helper-0</name>");
    // The listing is bounded: the skills it leaves out are counted and found by search_skills.
    const after = (await client.listTools()).tools.find((t) => t.name === "skill")?.description ?? "";
    expect(after).toContain("<name>helper-0</name>");
    const named = after.match(/<name>helper-\d+<\/name>/g)?.length ?? 0;
    const more = Number(after.match(/and (\d+) more/)?.[1] ?? 0);
    expect(named + more).toBe(50);
    await client.close();
  });
});
