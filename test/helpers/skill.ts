import type { Skill } from "../../src/skills/skill.ts";

/** A catalog Skill value for pure tests (a tree node when `over` gives kind "tree-node" and its `tree`). */
export function fakeSkill(name: string, over: Partial<Skill> = {}): Skill {
  return {
    kind: "agent-skill",
    name,
    key: name.toLowerCase(),
    id: `${over.source ?? "dir1"}:${name}`,
    description: `Helps with ${name}.`,
    tags: [],
    keywords: [],
    alwaysApply: false,
    frontmatterJson: "{}",
    bodyLines: 1,
    source: "dir1",
    location: "explicit",
    root: "/skills",
    dir: `/skills/${name}`,
    file: `/skills/${name}/SKILL.md`,
    hash: name,
    size: 10,
    mtimeMs: 1,
    ...over,
  } as Skill;
}
