import { afterAll, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { z } from "zod";
import { publicationIfBuilt } from "../../src/server/skills-extension/publication.ts";
import { httpClient, REVISIONS } from "../helpers/clients.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { httpHub } from "../helpers/hub.ts";
import { writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
const open = closeAfterEach();

/** 240 publishable skills, a shadowed one, and every kind the extension does not publish. */
async function world() {
  const a = tempDir("skillhub-res-a-");
  const b = tempDir("skillhub-res-b-");
  for (let i = 0; i < 240; i++) writeSkill(a, `skill-${String(i).padStart(3, "0")}`, { description: `Skill ${i}` });
  writeSkill(a, "with-files", { description: "Has files" });
  write(join(a, "with-files", "references", "guide.md"), "# Guide\n");
  writeSkill(b, "skill-007", { description: "Shadowed by the first folder" });
  // Not published: a name the Agent Skills rules refuse, a repaired frontmatter, a link, a tree node,
  // metadata that is not a map of strings, a description over 1,024 characters.
  writeSkill(a, "Title Case", { description: "An invalid name" });
  writeSkill(a, "repaired", { description: "Colon: inside" });
  writeSkill(a, "linked", { description: "Holds a link" });
  symlinkSync(join(a, "with-files", "references", "guide.md"), join(a, "linked", "guide.md"));
  writeNode(a, "_root.md", { description: "A tree's root" });
  writeSkill(a, "numbers", { description: "Numeric metadata", extra: "metadata:\n  version: 2" });
  writeSkill(a, "long", { description: "x".repeat(1100) });
  const served = await httpHub([a, b]);
  open.push(served.close);
  return served;
}

function page(client: Client, cursor?: string) {
  return client.request(
    { method: "resources/list", params: cursor ? { cursor } : {} } as never,
    z.looseObject({}) as never,
  ) as Promise<{ resources: { uri: string; name: string; mimeType?: string }[]; nextCursor?: string }>;
}

async function everyPage(client: Client) {
  const pages: number[] = [];
  const uris: string[] = [];
  let cursor: string | undefined;
  do {
    const result = await page(client, cursor);
    pages.push(result.resources.length);
    uris.push(...result.resources.map((r) => r.uri));
    cursor = result.nextCursor;
  } while (cursor);
  return { pages, uris };
}

describe.each([...REVISIONS])("resources/list in pages on %s", (revision) => {
  test("100 a page, what skills/list publishes, without building the publication (no file read or digested)", async () => {
    const w = await world();
    const client = await httpClient(w.handler, revision);
    open.unshift(() => client.close());
    const listed = await everyPage(client);
    expect(listed.pages).toEqual([100, 100, 42]);
    expect(new Set(listed.uris).size).toBe(242);
    expect(listed.uris).toEqual([...listed.uris].sort());
    expect(listed.uris).toContain("skill://with-files/SKILL.md");
    expect(listed.uris.some((u) => /^skill:\/\/skillhub-res-b-[a-z0-9]+\/skill-007\/SKILL\.md$/.test(u))).toBe(true);
    for (const refused of ["Title", "repaired", "linked", "_root", "numbers", "long"])
      expect(listed.uris.filter((u) => u.includes(refused))).toEqual([]);
    expect(publicationIfBuilt(w.hub.catalog)).toBeUndefined();
    // The same list once the publication exists (skills/list builds it): then it is listed from it.
    const published = await new SkillsClient(client).list();
    expect(publicationIfBuilt(w.hub.catalog)).toBeDefined();
    expect(published.skills.map((s) => s.uri).sort()).toEqual(listed.uris);
    expect((await everyPage(client)).uris).toEqual(listed.uris);
    // 2026-07-28 answers carry the cache fields, as every list does.
    const first = (await page(client)) as Record<string, unknown>;
    if (revision >= "2026") expect(first).toMatchObject({ ttlMs: 30_000, cacheScope: "private" });
    else expect(first.ttlMs).toBeUndefined();
  });

  test("a cursor not from this server is refused with -32602", async () => {
    const w = await world();
    const client = await httpClient(w.handler, revision);
    open.unshift(() => client.close());
    const error = await page(client, "bm90IGEgY3Vyc29y").catch((e) => e);
    expect(error.code).toBe(-32602);
  });
});
