import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { skillBody } from "../../src/skills/agent-skill.ts";
import { countLines, HeadingLines, headingsOf } from "../../src/skills/markdown.ts";
import { corporaFor } from "../helpers/corpora.ts";

const corpora = corporaFor("the chunked-heading test over real SKILL.md bodies");

/** Feed `text` in chunks of `size` characters. */
function chunked(text: string, size: number, max?: number): string[] {
  const headings = new HeadingLines(max);
  for (let at = 0; at < text.length; at += size) headings.push(text.slice(at, at + size));
  return headings.end();
}

const BODY = [
  "# PDF",
  "Intro text",
  "## Usage\r",
  "```bash",
  "# not a heading",
  "```",
  "###   Spaced out  ",
  "~~~",
  "## fenced too",
  "~~~",
  "#",
  "####### Deep",
  "no newline at the end: # not a heading",
  "## Last",
].join("\n");

describe("headings of a Markdown body", () => {
  test("outside code fences, trimmed, empty ones left out", () => {
    expect(headingsOf(BODY)).toEqual(["PDF", "Usage", "Spaced out", "Deep", "Last"]);
  });

  test("fed in chunks of any size, the same headings as the whole body (lines and fences split between chunks)", () => {
    for (const size of [1, 2, 3, 5, 7, 16, 1000]) expect(chunked(BODY, size)).toEqual(headingsOf(BODY));
  });

  test("the first `max` only", () => {
    expect(chunked(BODY, 4, 2)).toEqual(["PDF", "Usage"]);
    const headings = new HeadingLines(1);
    headings.push("# One\n# Two\n");
    expect(headings.full).toBe(true);
    headings.push("# Three\n");
    expect(headings.end()).toEqual(["One"]);
  });

  test.skipIf(!corpora)("real SKILL.md bodies: chunks of 64 KiB and of 37 characters agree with the whole", () => {
    const dir = corpora as string;
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith("SKILL.md"));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files.slice(0, 300)) {
      const body = skillBody(readFileSync(join(dir, f), "utf8"));
      expect(chunked(body, 65_536)).toEqual(headingsOf(body));
      expect(chunked(body, 37)).toEqual(headingsOf(body));
    }
  });

  test("lines counted without splitting", () => {
    expect(countLines("")).toBe(0);
    expect(countLines("a")).toBe(1);
    expect(countLines("a\nb\n")).toBe(3);
  });
});
