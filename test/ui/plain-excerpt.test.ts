import { afterAll, describe, expect, test } from "bun:test";
import { plainMarkdown } from "../../src/ui/plain-excerpt.ts";
import { searchView } from "../../src/ui/search-view.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { testHub } from "../helpers/hub.ts";

afterAll(cleanupTemp);

describe("a search excerpt as the page shows it", () => {
  test("Markdown's markup goes, its text stays", () => {
    const markdown = [
      "## Extract invoice totals",
      "",
      "Use **pdfplumber** and `extract_tables()`; see [the guide](docs/guide.md) or ![logo](logo.png).",
      "- first *step*",
      "1. [x] second step",
      "> a quoted __note__ about snake_case_names",
      "```python",
      "| column | total |",
      "|---|---|",
      "---",
    ].join("\n");
    expect(plainMarkdown(markdown).replace(/\s+/g, " ").trim()).toBe(
      "Extract invoice totals Use pdfplumber and extract_tables(); see the guide or logo. first step second step a quoted note about snake_case_names column total",
    );
  });

  test("plain text stays as it is; long hostile lines are read in one pass", () => {
    expect(plainMarkdown("Fill PDF forms: totals, dates and names.")).toBe("Fill PDF forms: totals, dates and names.");
    // Each of these made a quadratic expression rescan the line from every position.
    for (const hostile of [
      `${"[".repeat(8000)}x`,
      `${"[a](".repeat(2000)}x`,
      `a${"_".repeat(8000)}b`,
      "- ".repeat(4000),
    ]) {
      const out = plainMarkdown(hostile);
      expect(out.length).toBeLessThanOrEqual(hostile.length);
    }
    expect(plainMarkdown(`a${"_".repeat(10)}b`)).toBe(`a${"_".repeat(10)}b`);
  });

  test("the page's excerpt is made from the text: a heading's hashes and a fence's language are not in it", async () => {
    const dir = tempDir("skillhub-ui-excerpt-");
    writeSkill(dir, "deploy-notes", {
      description: "Deploy a service.",
      body: [
        "# Deploy notes",
        "",
        "Some words first.",
        "",
        "## When to use",
        "",
        "When a rollout must wait for canary metrics.",
        "",
        "```bash",
        "kubectl rollout status deploy/web",
        "```",
      ].join("\n"),
    });
    const { hub } = testHub({ flags: { "skills-dir": [dir] } });
    try {
      void hub.start();
      await hub.ready;
      const { hits } = await searchView(hub, "rollout canary", 5);
      expect(hits[0]?.name).toBe("deploy-notes");
      const excerpt = hits[0]?.excerpt ?? "";
      expect(excerpt).toContain("When to use When a rollout must wait for canary metrics. kubectl rollout status");
      expect(excerpt).not.toMatch(/#|```|bash/);
    } finally {
      hub.close();
    }
  });
});
