import { afterAll, describe, expect, test } from "bun:test";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { type CallToolResult, sessions } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const open = sessions();

// A search that comes while a large catalog's first search index is being built (a first start: no
// saved index) is answered at once from the skills' names and descriptions, and says so; once the
// whole index is built, searches read the instructions' text too.

function collection(): string {
  const dir = tempDir("skillhub-first-build-");
  writeSkill(dir, "invoice-parser", {
    description: "Parse invoices into totals",
    body: "# Invoices\n\nWorks for zanzibar customs forms as well.\n",
  });
  writeSkill(dir, "pdf-tools", { description: "Fill PDF forms" });
  return dir;
}

/** A session whose first index build pauses until `build()`: the index stays unfinished until then. */
async function heldBuild(earlyFromSkills: number) {
  let build!: () => void;
  const held = new Promise<void>((resolve) => (build = resolve));
  const s = await open({
    flags: { "skills-dir": [collection()] },
    hub: { search: { earlyFromSkills, tick: () => held } },
  });
  return { s, build };
}

type Found = { skills: { name: string }[]; partial?: string };
const found = (result: CallToolResult) => result.structuredContent as Found;

describe("search_skills during a first index build", () => {
  test("a catalog at least earlyFromSkills large: answered from the metadata, saying so, then in full", async () => {
    const { s, build } = await heldBuild(2);
    const byDescription = found(await s.call("search_skills", { query: "invoices totals" }));
    expect(byDescription.skills.map((h) => h.name)).toContain("invoice-parser");
    expect(byDescription.partial).toContain("still being built");
    // Only in the body: not indexed yet, and the answer says why it may be missing.
    const byBody = found(await s.call("search_skills", { query: "zanzibar" }));
    expect(byBody.skills).toEqual([]);
    expect(byBody.partial).toContain("not yet the instructions' text");
    build();
    await s.hub.search.ready;
    const full = found(await s.call("search_skills", { query: "zanzibar" }));
    expect(full.skills.map((h) => h.name)).toEqual(["invoice-parser"]);
    expect(full.partial).toBeUndefined();
  });

  test("a smaller catalog: the first search waits for the whole index", async () => {
    const { s, build } = await heldBuild(3);
    const search = s.call("search_skills", { query: "zanzibar" });
    build();
    const result = found(await search);
    expect(result.skills.map((h) => h.name)).toEqual(["invoice-parser"]);
    expect(result.partial).toBeUndefined();
  });
});
