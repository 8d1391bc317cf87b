import { describe, expect, test } from "bun:test";
import { digestBytes } from "../../src/catalog/skill-digest.ts";
import { parseAgentSkill } from "../../src/skills/agent-skill.ts";

const enc = new TextEncoder();
/** The digest path and the plain-text path must parse a file the same way. */
function both(text: string) {
  const input = { file: "/s/x/SKILL.md", dir: "/s/x", size: text.length, mtimeMs: 1, ctimeMs: 1, ino: 1 };
  const plain = parseAgentSkill({ ...input, text });
  const digest = parseAgentSkill({ ...input, ...digestBytes(enc.encode(text)) });
  return { plain, digest };
}

describe("SKILL.md digests", () => {
  const cases = [
    "---\nname: x\ndescription: d\n---\n# Title\n\ntext\n```sh\n# comment\n```\n## Two\n",
    "\uFEFF---\r\nname: x\r\ndescription: d\r\n---\r\n\r\n# Title\r\nline\r\n",
    "---\nname: x\ndescription: d\n---\n\n\nbody without headings\n---\nmore after a rule\n",
    "---\nname: x\ndescription: d\n---",
    `---\nname: x\ndescription: d\n---\n${"line\n".repeat(600)}`,
    "# no frontmatter\n",
    "---\nname: x\n",
    "---\nname: x\ndescription: Use when: broken yaml\n---\n~~~\n# fenced\n~~~\n# Real é heading\n",
  ];
  test("give the same skill and diagnostics as parsing the whole text", () => {
    for (const text of cases) {
      const { plain, digest } = both(text);
      expect(digest.diagnostics.map((d) => d.code)).toEqual(plain.diagnostics.map((d) => d.code));
      if (plain.skill) {
        expect({ ...digest.skill, hash: "" }).toEqual({ ...plain.skill, hash: "" });
      } else expect(digest.skill).toBeUndefined();
    }
  });
});
