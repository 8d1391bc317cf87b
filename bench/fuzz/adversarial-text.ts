/**
 * Pathological skill content for the parsers: 1 MiB lines built to make a
 * backtracking regex go quadratic or worse. Shared by the parser tests
 * (correct output) and bench/parse-adversarial.ts (time beside a floor).
 */

import type { SkillFileInput } from "../../src/skills/agent-skill.ts";

export const MIB = 1_048_576;

export interface AdversarialSkill {
  name: string;
  /** A whole SKILL.md. */
  text: string;
  /** What the description must come back as, when the skill parses. */
  description?: string;
}

/** A case as the parser is handed a SKILL.md under `root`: its text, and a stamp that says nothing. */
export function skillFileOf(c: AdversarialSkill, root: string): SkillFileInput {
  const dir = `${root}/${c.name}`;
  return { file: `${dir}/SKILL.md`, dir, text: c.text, size: c.text.length, mtimeMs: 0, ctimeMs: 0, ino: 0 };
}

const pad = (unit: string, bytes = MIB) => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);

/** Cases aimed at each regex that sees skill content (lenient YAML repair, headings, tokeniser, acronyms). */
export function adversarialSkills(bytes = MIB): AdversarialSkill[] {
  const spaces = pad(" ", bytes);
  return [
    {
      // quoteBrokenValues' former `(.+?)\s*$` on a long run of spaces, plus one line YAML cannot read.
      name: "spaces-then-broken-line",
      text: `---\nname: spaces-then-broken-line\ndescription: a${spaces}b\nnote: Use when: broken\n---\nbody\n`,
      description: `a${spaces}b`,
    },
    {
      name: "broken-value-1mib",
      text: `---\nname: broken-value-1mib\ndescription: Use when: ${pad("x ", bytes)}end\n---\nbody\n`,
      description: `Use when: ${pad("x ", bytes)}end`,
    },
    {
      name: "hyphen-run",
      text: `---\nname: hyphen-run\ndescription: ${pad("-", bytes)}a\n---\n${pad("-", bytes)}a\n`,
      description: `${pad("-", bytes)}a`,
    },
    {
      name: "capitalised-words",
      text: `---\nname: capitalised-words\ndescription: ${pad("A ", bytes)}\n---\n${pad("Ab-", bytes)}\n`,
      description: pad("A ", bytes).trim(),
    },
    {
      name: "heading-run",
      text: `---\nname: heading-run\ndescription: headings\n---\n${pad("#", bytes)}${spaces}x\n${pad("`", bytes)}\n`,
      description: "headings",
    },
    {
      name: "colon-run",
      text: `---\nname: colon-run\ndescription: ${pad(": ", bytes)}\n---\nbody\n`,
    },
    {
      name: "alias-run",
      text: `---\nname: alias-run\ndescription: ${pad("*a &b ", bytes)}\n---\nbody\n`,
    },
    {
      name: "no-closing-fence",
      text: `---\nname: no-closing-fence\ndescription: ${pad("x: ", bytes)}`,
    },
  ];
}

/** A benign SKILL.md whose description is `bytes` of ordinary words: the floor the adversarial cases are compared with. */
export function benignSkill(bytes = MIB): AdversarialSkill {
  const words = pad("Lorem ipsum Dolor sit amet, consectetur: adipiscing elit. ", bytes).trim();
  return { name: "benign", text: `---\nname: benign\ndescription: "${words}"\n---\n${words}\n`, description: words };
}
