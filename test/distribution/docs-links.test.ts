import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

/** README.md and every Markdown file under docs/: the user documentation. */
function userDocs(): string[] {
  const docs: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".md")) docs.push(path);
    }
  };
  if (existsSync(join(ROOT, "docs"))) walk(join(ROOT, "docs"));
  return [join(ROOT, "README.md"), ...docs.sort()];
}

/** Text outside fenced code blocks and inline code, where Markdown links live. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces to hyphens, -1 for repeats. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const [, heading] of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const plain = (heading ?? "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    const slug = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Relative link targets in a Markdown text (external URLs left out). */
export function relativeLinks(text: string): string[] {
  const targets = [...prose(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? "");
  return targets.filter((t) => t !== "" && !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** What is wrong with one link from `file`, or undefined. */
function brokenLink(file: string, target: string): string | undefined {
  const [path = "", anchor] = target.split("#", 2);
  const destination = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
  if (!existsSync(destination)) return "no such file";
  if (anchor && destination.endsWith(".md") && !headingAnchors(readFileSync(destination, "utf8")).has(anchor))
    return `no heading #${anchor}`;
  return undefined;
}

describe("user documentation (README.md, docs/)", () => {
  test("every relative link points at an existing file, and every anchor at a heading", () => {
    const broken: string[] = [];
    let count = 0;
    for (const file of userDocs()) {
      for (const target of relativeLinks(readFileSync(file, "utf8"))) {
        count++;
        const problem = brokenLink(file, target);
        if (problem) broken.push(`${relative(ROOT, file)}: (${target}) ${problem}`);
      }
    }
    expect(broken).toEqual([]);
    expect(count).toBeGreaterThan(10);
  });

  test("the README links every page of docs/", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const linked = new Set(relativeLinks(readme).map((t) => t.split("#")[0]));
    const pages = userDocs()
      .slice(1)
      .map((f) => relative(ROOT, f));
    expect(pages.filter((p) => !linked.has(p))).toEqual([]);
  });

  test("the link checker finds what it should", () => {
    const text = "[a](docs/x.md) [b](https://example.com) `[c](no.md)` [d](#here)\n```\n[e](fenced.md)\n```\n";
    expect(relativeLinks(text)).toEqual(["docs/x.md", "#here"]);
    expect([...headingAnchors("# A `skills` folder's config.yaml\n## Two\n## Two\n")]).toEqual([
      "a-skills-folders-configyaml",
      "two",
      "two-1",
    ]);
    expect(brokenLink(join(ROOT, "README.md"), "docs/none.md")).toBe("no such file");
    expect(brokenLink(join(ROOT, "README.md"), "#no-such-heading")).toBe("no heading #no-such-heading");
  });

  test("cites no internal design documents: no seed numbers, DESIGN sections or § references", () => {
    const patterns = [/\bseeds?\s+\d{3}\b/i, /\bseeds?\s+\d{3}\/\d{3}/i, /\bDESIGN(\.md)?\b/, /§/, /shared\/seeds/];
    const found: string[] = [];
    for (const file of [...userDocs(), join(ROOT, "CHANGELOG.md")]) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (patterns.some((p) => p.test(line))) found.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
