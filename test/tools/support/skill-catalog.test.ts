import { describe, expect, test } from "bun:test";
import {
  CLAUDE_CODE_BUDGET,
  renderSkillToolDescription,
  SKILL_TOOL_TEMPLATE,
} from "../../../src/tools/support/skill-catalog.ts";
import { pickSkills } from "../../../src/usage/skill-pick.ts";
import { fakeSkill } from "../../helpers/skill.ts";

const many = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    fakeSkill(`skill-${String(i).padStart(4, "0")}`, {
      description: `Does task number ${i} with care and precision. `.repeat(3),
    }),
  );

describe("renderSkillToolDescription", () => {
  test("uses the skill tool's template and XML entries with name, description and location", () => {
    const text = renderSkillToolDescription(
      [fakeSkill("git", { description: "Git <workflow> & more", location: "project" })],
      { budget: 6000, hasSearch: true },
    );
    expect(text.startsWith("Execute a skill within the main conversation\n\n<skills_instructions>")).toBe(true);
    expect(text).toContain(
      "<available_skills>\n<skill>\n<name>git</name>\n<description>Git &lt;workflow&gt; &amp; more</description>\n<location>project</location>\n</skill>\n</available_skills>",
    );
    expect(text).toBe(
      SKILL_TOOL_TEMPLATE.replace("${examples}", '- Examples:\n  - `name: "git"` - invoke the git skill\n').replace(
        "${dynamicSkillsList}",
        "<skill>\n<name>git</name>\n<description>Git &lt;workflow&gt; &amp; more</description>\n<location>project</location>\n</skill>",
      ),
    );
  });

  test("its examples name served skills only: the first listed, a qualified name when one is hidden, none without skills", () => {
    const served = [fakeSkill("deploy-checklist"), fakeSkill("git")];
    const text = renderSkillToolDescription(served, { budget: 6000, hasSearch: true, qualifiedExample: "global:git" });
    expect(text).toContain('- Examples:\n  - `name: "deploy-checklist"` - invoke the deploy-checklist skill\n');
    expect(text).toContain('  - `name: "global:git"` - invoke a skill by its qualified name (<source>:<name>)\n');
    for (const exampleName of ['"pdf"', '"xlsx"', "ms-office-suite"]) expect(text).not.toContain(exampleName);
    const empty = renderSkillToolDescription([], { budget: 6000, hasSearch: true });
    expect(empty).not.toContain("Examples");
    expect(empty).toContain("the task\n\nImportant:");
    // A name too long to be an example is passed over.
    const long = renderSkillToolDescription([fakeSkill("x".repeat(300)), fakeSkill("short")], {
      budget: 6000,
      hasSearch: true,
    });
    expect(long).toContain('`name: "short"`');
  });

  test("alwaysApply skills are listed first", () => {
    const text = renderSkillToolDescription([fakeSkill("b"), fakeSkill("a", { alwaysApply: true })], {
      budget: 6000,
      hasSearch: false,
    });
    expect(text.indexOf("<name>a</name>")).toBeLessThan(text.indexOf("<name>b</name>"));
  });

  test("stays within the budget at any size, shortening, then names only, then a count", () => {
    for (const n of [1, 5, 20, 100, 1000, 10000]) {
      for (const budget of [CLAUDE_CODE_BUDGET, 6000]) {
        const text = renderSkillToolDescription(many(n), { budget, hasSearch: true });
        expect(text.length).toBeLessThanOrEqual(budget);
      }
    }
    const shortened = renderSkillToolDescription(many(30), { budget: 6000, hasSearch: true });
    expect(shortened).toContain("…</description>");
    const namesOnly = renderSkillToolDescription(many(80), { budget: 6000, hasSearch: true });
    expect(namesOnly).toContain("<skill><name>skill-0079</name></skill>");
    const counted = renderSkillToolDescription(many(1000), { budget: 2000, hasSearch: true });
    expect(counted).toMatch(/…and \d+ more: use search_skills to find them/);
  });

  test("over budget, the alwaysApply and most used skills are the ones listed", () => {
    const skills = many(1000);
    const core = fakeSkill("core-rules", { alwaysApply: true });
    const favourite = skills[777]!;
    const usage = { get: (id: string) => (id === favourite.id ? 5 : undefined), lastUsed: () => 1 };
    const text = renderSkillToolDescription([...skills, core], {
      budget: 2000,
      hasSearch: false,
      ranked: () => pickSkills([...skills, core], { usage }),
    });
    expect(text).toContain("<name>core-rules</name>");
    expect(text).toContain(`<name>${favourite.name}</name>`);
    expect(text.indexOf("core-rules")).toBeLessThan(text.indexOf(favourite.name));
    expect(text).toMatch(/…and \d+ more \(any skill name works with this tool\)\./);
  });
});
