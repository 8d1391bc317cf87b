import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Skill } from "../../src/skills/skill.ts";
import { projectTerms } from "../../src/usage/project-signals.ts";
import { pickSkills } from "../../src/usage/skill-pick.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { fakeSkill } from "../helpers/skill.ts";

afterAll(cleanupTemp);

const DAY = 86_400_000;
const usageOf = (counts: Record<string, [count: number, last: number]>) => ({
  get: (id: string) => counts[id]?.[0],
  lastUsed: (id: string) => counts[id]?.[1],
});

/** A skill of collection `collection` (a folder of skill folders) in source `source`. */
function skill(name: string, collection: string, over: Partial<Skill> = {}): Skill {
  const root = `/src/${over.source ?? "team"}`;
  return fakeSkill(name, {
    source: "team",
    id: `${over.source ?? "team"}:${name}`,
    root,
    dir: `${root}/${collection}/${name}`,
    mtimeMs: 100 * DAY,
    description: `Does ${name} things.`,
    ...over,
  });
}

const names = (skills: readonly Skill[]) => skills.map((s) => s.name);

describe("the pick: the skills most worth naming first", () => {
  test("with no history and no project: each collection takes its turn, never a run of look-alikes", () => {
    const automations = Array.from({ length: 30 }, (_, i) =>
      skill(`app${String(i).padStart(2, "0")}-automation`, "composio"),
    );
    const science = ["anndata", "biopython", "scanpy"].map((n) => skill(n, "scientific"));
    const top = names(pickSkills([...automations, ...science]).slice(0, 6));
    expect(top).toEqual(["anndata", "app00-automation", "biopython", "app01-automation", "scanpy", "app02-automation"]);
  });

  test("names that break the Agent Skills rules ('-21risk-automation', 'Ahrefs Automation') come after well-formed ones", () => {
    const picked = pickSkills([
      skill("-21risk-automation", "c"),
      skill("Ahrefs Automation", "c"),
      skill("zoom-automation", "c"),
    ]);
    expect(names(picked)).toEqual(["zoom-automation", "-21risk-automation", "Ahrefs Automation"]);
  });

  test("the most recently changed (by day) come first", () => {
    const picked = pickSkills([
      skill("old", "a"),
      skill("edited-yesterday", "a", { mtimeMs: 300 * DAY }),
      skill("older", "b", { mtimeMs: DAY }),
    ]);
    expect(names(picked)).toEqual(["edited-yesterday", "old", "older"]);
  });

  test("skills that hold the project's words come first, the most of them first", () => {
    const skills = [
      skill("spreadsheet-helper", "a", { description: "Edit Excel spreadsheets." }),
      skill("react-testing", "a", { description: "Test React components with TypeScript and Vitest." }),
      skill("python-lint", "b", { description: "Lint Python code." }),
      skill("ts-style", "b", { description: "TypeScript style rules." }),
    ];
    const terms = new Map([
      ["typescript", 3],
      ["react", 1],
      ["vitest", 1],
    ]);
    expect(names(pickSkills(skills, { terms }))).toEqual([
      "react-testing",
      "ts-style",
      "python-lint",
      "spreadsheet-helper",
    ]);
  });

  test("alwaysApply, then the project's own skills, then the most used, then the rest", () => {
    const skills = [
      skill("global-favourite", "g", { source: "global", location: "global" }),
      skill("rules", "g", { source: "global", location: "global", alwaysApply: true }),
      skill("deploy", "p", { source: "project", location: "project" }),
      skill("lint", "p", { source: "project", location: "project" }),
      skill("in-project-folder", "x", { source: "skills", location: "explicit", root: "/work/app/skills" }),
      skill("elsewhere", "x", { source: "other", location: "explicit", root: "/opt/skills" }),
      skill("unused", "g", { source: "global", location: "global" }),
    ];
    const usage = usageOf({ "global:global-favourite": [9, 5], "project:lint": [2, 4] });
    expect(names(pickSkills(skills, { usage, projectDir: "/work/app" }))).toEqual([
      "rules",
      "lint",
      "deploy",
      "in-project-folder",
      "global-favourite",
      "elsewhere",
      "unused",
    ]);
  });

  test("among used skills: the most loaded, then the most recently loaded", () => {
    const skills = ["a", "b", "c", "d"].map((n) => skill(n, "c"));
    const usage = usageOf({ "team:a": [1, 50], "team:b": [3, 10], "team:c": [1, 90] });
    expect(names(pickSkills(skills, { usage }))).toEqual(["b", "c", "a", "d"]);
  });
});

describe("the project's words", () => {
  test("languages from file extensions, tools from the files that configure them, dependencies from manifests", () => {
    const project = tempDir("skillhub-project-");
    write(
      join(project, "package.json"),
      JSON.stringify({ dependencies: { react: "19", "@tanstack/react-query": "5" }, devDependencies: { vitest: "3" } }),
    );
    write(join(project, "tsconfig.json"), "{}");
    write(join(project, "src", "app.tsx"), "");
    write(join(project, "Dockerfile"), "FROM scratch\n");
    write(join(project, "requirements.txt"), "pandas>=2\n# a comment\nscanpy\n");
    write(join(project, "pyproject.toml"), '[project]\ndependencies = [\n  "polars>=1",\n]\n');
    const terms = projectTerms(project);
    for (const word of ["typescript", "react", "node.js", "docker", "python"]) expect(terms.get(word)).toBe(3);
    for (const word of ["vitest", "react-query", "pandas", "scanpy", "polars"]) expect(terms.get(word)).toBe(1);
    expect(projectTerms(null).size).toBe(0);
    expect(projectTerms(join(project, "missing")).size).toBe(0);
  });
});
