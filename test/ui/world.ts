import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { tempDir, write, writeSkill } from "../helpers/fs.ts";
import { writeNode } from "../helpers/tree.ts";

/** A skill whose Markdown and file names try to run script in the page. */
export const HOSTILE_NAME = "hostile-skill";
export const HOSTILE_FILE = `<img src=x onerror=alert(1)>.md`;
export const HOSTILE_BODY = [
  "# Hostile <script>window.__pwned = 1</script>",
  "",
  '<img src="x" onerror="window.__pwned = 2">',
  "",
  "[click me](javascript:window.__pwned=3)",
  "",
  "```html",
  "<script>window.__pwned = 4</script>",
  "```",
  "",
  "| <b onmouseover=window.__pwned=5>cell</b> | x |",
  "|---|---|",
  "| <svg onload=window.__pwned=6> | y |",
].join("\n");

/** Files of the hostile skill that would run script if served with their own type, or drawn. */
export const HOSTILE_PAGES = { html: "page.html", svg: "icon.svg" };
export const HOSTILE_SVG = HOSTILE_PAGES.svg;
export const HOSTILE_SVG_TEXT =
  '<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned = 10"><script>window.__pwned = 11</script></svg>\n';

/**
 * Folders for the page's tests: skills with files, a shadowed pair, a broken
 * skill, a hostile skill, a skill tree, a secret outside every skill reached
 * by a symlink, and recorded analytics.
 */
export function uiWorld() {
  const home = tempDir("skillhub-ui-home-");
  // Labelled by their names: first:git-commits shadows second:git-commits.
  const folders = tempDir("skillhub-ui-folders-");
  const [first, second, trees] = ["first", "second", "trees"].map((name) => join(folders, name)) as [
    string,
    string,
    string,
  ];
  for (const dir of [first, second, trees]) mkdirSync(dir);
  const outside = tempDir("skillhub-ui-outside-");
  writeSkill(first, "pdf-invoices", {
    description: "Extract invoice numbers and totals from PDF invoices.",
    body: "# PDF invoices\n\nRead the **totals** table; see [the reference](docs/reference.md).\n\n- step one\n- step two\n",
    extra: "metadata:\n  skillhub:\n    category: documents\n    tags: [pdf, invoices]",
  });
  write(join(first, "pdf-invoices", "docs", "reference.md"), "# Reference\n\nColumns: `number`, `total`.\n");
  write(join(first, "pdf-invoices", "logo.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 1, 2, 3]));
  write(join(outside, "secret.txt"), "TOP-SECRET-CONTENT\n");
  symlinkSync(join(outside, "secret.txt"), join(first, "pdf-invoices", "leak.txt"));
  writeSkill(first, "git-commits", {
    description: "Write Conventional Commits messages for git commits.",
    body: "# Commits\n\nUse `feat:` and `fix:`.\n",
  });
  writeSkill(second, "git-commits", { description: "An older copy of the commit skill, shadowed by the first." });
  writeSkill(first, "broken-skill", { description: null, body: "No description, so not served.\n" });
  writeSkill(first, HOSTILE_NAME, {
    description: "Tries <script>window.__pwned=7</script> in its description.",
    body: HOSTILE_BODY,
  });
  write(join(first, HOSTILE_NAME, HOSTILE_FILE), "<script>window.__pwned = 8</script>\n");
  // Files a browser runs when served as they are, on the hub's origin: the page shows them, never serves them.
  write(join(first, HOSTILE_NAME, HOSTILE_PAGES.html), "<html><script>window.__pwned = 9</script></html>\n");
  write(join(first, HOSTILE_NAME, HOSTILE_SVG), HOSTILE_SVG_TEXT);
  writeNode(trees, "_root.md", { keywords: ["global", "rules"], description: "Universal project rules" });
  // Keywords enough to fill a phone's line beside the node's name.
  writeNode(trees, "ui/_index.md", {
    keywords: ["ui", "frontend", "components", "accessibility", "design-system"],
    description: "Frontend rules",
  });
  writeNode(trees, "ui/react.md", {
    keywords: ["react", "components"],
    description: "React component rules",
    extra: "assets:\n  - file: assets/Form.tsx.template\n    description: A form component\n    type: template",
  });
  write(join(trees, "ui", "react", "assets", "Form.tsx.template"), "export function Form() {}\n");
  writeNode(trees, "api/auth.md", { keywords: ["auth", "login"], description: "Auth rules", extra: "inherit: false" });
  const analytics = join(home, "analytics.jsonl");
  write(analytics, recordedEvents());
  return { home, first, second, trees, outside, analytics };
}

/** Two weeks of loads (three skills, one a tree node), and searches that found nothing. */
function recordedEvents(): string {
  const event = (type: string, timestamp: string, data: Record<string, unknown>) =>
    JSON.stringify({ type, timestamp, server_id: "dev-test", data });
  const lines: string[] = [];
  const last = Date.parse("2026-11-22T00:00:00Z");
  for (let i = 0; i < 14; i++) {
    const day = new Date(last - (13 - i) * 86_400_000).toISOString().slice(0, 10);
    const at = (n: number) => `${day}T${String(8 + (n % 10)).padStart(2, "0")}:00:00Z`;
    for (let n = 0; n < (i % 5) + 1; n++) lines.push(event("skill_loaded", at(n), { skill: "pdf-invoices" }));
    for (let n = 0; n < i % 3; n++) lines.push(event("skill_loaded", at(n), { skill: "git-commits" }));
    for (let n = 0; n < i % 2; n++) lines.push(event("skill_served", at(n), { skill_path: "ui/react", score: 0.8 }));
  }
  lines.push(event("search", "2026-11-22T12:00:00Z", { query: "kubernetes helm chart", results: 0 }));
  lines.push(event("search", "2026-11-22T12:01:00Z", { query: "kubernetes helm chart", results: 0 }));
  lines.push(event("search", "2026-11-22T12:02:00Z", { query: "<script>alert(1)</script>", results: 0 }));
  lines.push(event("search", "2026-11-22T12:03:00Z", { query: "pdf", results: 1 }));
  lines.push(event("no_match", "2026-11-21T12:03:00Z", { context: "terraform modules", closest_candidate: null }));
  return `${lines.join("\n")}\n`;
}
