import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { corporaFor, corpusFolders } from "../helpers/corpora.ts";
import { cleanupTemp } from "../helpers/fs.ts";
import { sessions } from "../helpers/hub.ts";

/**
 * get_skill routing beside real Agent Skills (issue: "a keyword matches
 * inside a one-word skill name"). Agent Skills stay out of keyword routing:
 * their names never route by a substring, nor by a whole word.
 */
const open = sessions();
afterAll(cleanupTemp);
const EXAMPLE = join(import.meta.dir, "..", "..", "skills-example");
const corpora = corporaFor("get_skill routing beside the real corpora");

const TREE_CASES: [string, string][] = [
  ["build a react form with validation", "frontend/react-forms"],
  ["add a new REST endpoint for invoices", "backend/rest-endpoints"],
  ["fix a production incident with a hotfix", "backend/incident-hotfix"],
];

async function route(dirs: string[], context: string) {
  const { call } = await open({ flags: { "skills-dir": dirs }, env: { SKILLHUB_TOOLS: "all" } });
  return (await call("get_skill", { context })).structuredContent as Record<string, unknown>;
}

describe("get_skill routing with Agent Skills beside a tree", () => {
  test("skills-example alone: the tree's requests route to its nodes", async () => {
    for (const [context, path] of TREE_CASES)
      expect({ context, got: (await route([EXAMPLE], context)).skill_path }).toEqual({ context, got: path });
  });

  test.skipIf(!corpora)(
    "with the real corpora beside skills-example: still the tree's nodes, never a one-word skill name",
    async () => {
      const dirs = [EXAMPLE, ...corpusFolders(corpora as string)];
      const { call, hub } = await open({ flags: { "skills-dir": dirs }, env: { SKILLHUB_TOOLS: "all" } });
      // The names that used to win by containment ("form" in transformers, "invoices" ⊃ invoice) are served.
      expect(hub.catalog.get("transformers")).toBeDefined();
      expect(hub.catalog.get("invoice-organizer")).toBeDefined();
      for (const [context, path] of TREE_CASES) {
        const answer = (await call("get_skill", { context })).structuredContent as Record<string, unknown>;
        expect({ context, got: answer.skill_path, kind: answer.kind }).toEqual({
          context,
          got: path,
          kind: "tree-node",
        });
      }
      // A request only Agent Skills fit: no_match, with where to look; search_skills finds it.
      const pdf = (await call("get_skill", { context: "extract the invoice number from a pdf" })).structuredContent;
      expect(pdf).toMatchObject({ no_match: true, hint: expect.stringContaining("search_skills") });
      const found = (await call("search_skills", { query: "extract the invoice number from a pdf" }))
        .structuredContent as {
        skills: { name: string }[];
      };
      expect(found.skills.slice(0, 3).map((s) => s.name)).toContain("pdf-invoice-extractor");
      // An exact name still selects an Agent Skill directly.
      expect((await call("get_skill", { context: "invoice-organizer" })).structuredContent).toMatchObject({
        skill_path: "invoice-organizer",
        kind: "agent-skill",
      });
    },
  );
});
