import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);
const bin = binary();

async function instructionsOf(skills: string, home: string): Promise<string> {
  const env = { PATH: process.env.PATH ?? "", HOME: home };
  const transport = new StdioClientTransport({ command: bin, args: ["--skills-dir", skills], env, cwd: home });
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(transport);
  const text = client.getInstructions() ?? "";
  await client.close();
  return text;
}

describe("the skills the instructions name are kept for the next start", () => {
  test("a run keeps them beside the index; the next one's instructions name them", async () => {
    const home = tempDir("skillhub-e2e-home-");
    const skills = tempDir("skillhub-e2e-skills-");
    writeSkill(skills, "invoice-parser", { description: "Parse invoices into totals" });
    expect(await instructionsOf(skills, home)).toContain("- invoice-parser: Parse invoices into totals");
    const index = join(home, ".skillhub", "index");
    const kept = readdirSync(index).filter((f) => f.startsWith("named-skills-"));
    expect(kept).toHaveLength(1);
    const names = JSON.parse(readFileSync(join(index, kept[0] as string), "utf8")) as { name: string }[];
    expect(names.map((s) => s.name)).toEqual(["invoice-parser"]);
    // The second start answers initialize with the kept names (or the scanned ones, when the scan won).
    expect(await instructionsOf(skills, home)).toContain("- invoice-parser: Parse invoices into totals");
  });
});
