import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Scanner } from "../../src/catalog/scanner.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { type ConnectOptions, sessions, textOf } from "../helpers/hub.ts";
import { eventually } from "../helpers/wait.ts";

afterAll(cleanupTemp);
const connectSession = sessions();

/** A project and a home, each with .agent/skills (the universal skill folders). */
function layout() {
  const home = tempDir("skillhub-home-");
  const project = tempDir("skillhub-project-");
  const projectSkills = join(project, ".agent", "skills");
  const globalSkills = join(home, ".agent", "skills");
  return { home, project, projectSkills, globalSkills };
}

async function open(l: ReturnType<typeof layout>, extra: ConnectOptions = {}) {
  return connectSession({ home: l.home, flags: { project: l.project }, ...extra });
}

describe("skill tool: its testing scenarios", () => {
  test("1. load existing skill: 'Loading:', 'Base directory:', then SKILL.md verbatim", async () => {
    const l = layout();
    const file = writeSkill(l.projectSkills, "git", {
      description: "Git deployment workflow skill",
      body: "# Git Deployment GitOps\n\n## Overview\n\nManage commits.\n",
    });
    const { call } = await open(l);
    const result = await call("skill", { name: "git" });
    expect(result.isError).toBeFalsy();
    // The "Loading: …" text is the first content item, exactly; the description's <command-message> promise follows.
    expect(result.content).toEqual([
      {
        type: "text",
        text: `Loading: git\nBase directory: ${join(l.projectSkills, "git")}\n\n${readFileSync(file, "utf8")}`,
      },
      { type: "text", text: '<command-message>The "git" skill is loading</command-message>' },
    ]);
  });

  test("2. case-insensitive match: 'Git' finds 'git', 'MCP-Builder' finds 'mcp-builder'", async () => {
    const l = layout();
    writeSkill(l.projectSkills, "git");
    writeSkill(l.globalSkills, "mcp-builder");
    const { call } = await open(l);
    expect(textOf(await call("skill", { name: "Git" }))).toStartWith("Loading: git\n");
    expect(textOf(await call("skill", { name: "MCP-Builder" }))).toStartWith("Loading: mcp-builder\n");
  });

  test("3. skill not found: the documented text, close matches first, then the available skills", async () => {
    const l = layout();
    writeSkill(l.projectSkills, "git", { description: "Git workflow" });
    writeSkill(l.projectSkills, "mcp-builder", { description: "MCP development" });
    writeSkill(l.projectSkills, "postgres", { description: "PostgreSQL database operations" });
    const { call } = await open(l);
    const result = await call("skill", { name: "postgress" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "Skill 'postgress' not found.\n\nAvailable skills:\n- postgres: PostgreSQL database operations\n- git: Git workflow\n- mcp-builder: MCP development\n\nUse the exact skill name (case-insensitive) to load a skill.",
    );
    expect(result.structuredContent).toEqual({
      error: { code: "SKILL_NOT_FOUND", message: "Skill 'postgress' not found.", suggestions: ["postgres"] },
    });
  });

  test("4. empty name: a validation error naming the field", async () => {
    const l = layout();
    const { call } = await open(l);
    const result = await call("skill", { name: "" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("INVALID_ARGUMENT");
    expect(textOf(result)).toContain("Skill name cannot be empty");
    const extra = await call("skill", { name: "git", other: 1 });
    expect(extra.isError).toBe(true);
    expect(textOf(extra)).toContain("other");
  });

  test("5. priority resolution: a project skill overrides the global one", async () => {
    const l = layout();
    writeSkill(l.projectSkills, "git", { description: "project git" });
    writeSkill(l.globalSkills, "git", { description: "global git" });
    writeSkill(join(l.project, ".claude", "skills"), "git", { description: "claude project git" });
    const { call, client } = await open(l);
    expect(textOf(await call("skill", { name: "git" }))).toContain("description: project git");
    expect(textOf(await call("skill", { name: "agent-global:git" }))).toContain("description: global git");
    const { tools } = await client.listTools();
    const description = tools.find((t) => t.name === "skill")?.description ?? "";
    expect(description).toContain("<description>project git</description>\n<location>project</location>");
    expect(description).not.toContain("global git");
  });

  test("6. refresh detection: a new skill appears at the next rescan, and loads by name at once", async () => {
    const l = layout();
    writeSkill(l.projectSkills, "git");
    const { call, client, hub } = await open(l);
    writeSkill(l.projectSkills, "fresh", { description: "Brand new" });
    // Even before any rescan, a call by name finds it (one quick rescan on a miss).
    expect(textOf(await call("skill", { name: "fresh" }))).toStartWith("Loading: fresh\n");
    await hub.refresher.rescan("test");
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "skill")?.description).toContain("<name>fresh</name>");
  });

  test("7. missing directories: no error, other folders still served", async () => {
    const l = layout();
    writeSkill(l.globalSkills, "only-global");
    const { call, hub } = await open(l, { flags: { project: l.project, "skills-dir": ["/definitely/not/here"] } });
    expect(textOf(await call("skill", { name: "only-global" }))).toStartWith("Loading: only-global\n");
    expect(hub.catalog.sources.find((s) => s.label === "here")?.exists).toBe(false);
    expect(hub.catalog.diagnostics).toEqual([]);
  });

  test("8. malformed frontmatter: skipped, warning logged, the rest served", async () => {
    const l = layout();
    writeSkill(l.projectSkills, "good");
    write(join(l.projectSkills, "broken", "SKILL.md"), "---\nname: [broken\ndescription: x\n---\nbody");
    const { call, logger, hub } = await open(l);
    expect(textOf(await call("skill", { name: "good" }))).toStartWith("Loading: good\n");
    expect((await call("skill", { name: "broken" })).isError).toBe(true);
    expect(
      logger.lines.some((line) => line.includes("WARN") && line.includes("yaml-error") && line.includes("broken")),
    ).toBe(true);
    expect(hub.catalog.diagnostics.map((d) => d.code)).toEqual(["yaml-error"]);
  });

  test("9. missing required field: skipped with a diagnostic", async () => {
    const l = layout();
    writeSkill(l.projectSkills, "nodesc", { description: null });
    writeSkill(l.projectSkills, "good");
    const { call, hub } = await open(l);
    expect((await call("skill", { name: "nodesc" })).isError).toBe(true);
    expect(hub.catalog.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ["missing-description", join(l.projectSkills, "nodesc", "SKILL.md")],
    ]);
  });

  test("10. permission denied: skipped, error logged, the rest served", async () => {
    const l = layout();
    writeSkill(l.projectSkills, "good");
    const locked = writeSkill(l.projectSkills, "locked");
    // Tests may run as root, which reads any file: deny the read through the scanner's reader instead of chmod.
    const scanner = new Scanner(undefined, (file) => {
      if (file === locked) throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
      return readFileSync(file, "utf8");
    });
    const { call, logger } = await open(l, { hub: { scanner } });
    expect(textOf(await call("skill", { name: "good" }))).toStartWith("Loading: good\n");
    expect((await call("skill", { name: "locked" })).isError).toBe(true);
    expect(
      logger.lines.some((line) => line.includes("ERROR") && line.includes("unreadable") && line.includes("EACCES")),
    ).toBe(true);
  });
});

describe("skill tool: SkillHub additions", () => {
  test("<location>: a --skills-dir folder inside the project is 'project' locally, the hub's over HTTP; search_skills and list_skills say the same", async () => {
    const l = layout();
    const inside = join(l.project, "team-skills");
    const outside = join(l.home, "more-skills");
    writeSkill(inside, "deploy", { description: "Deploy the app" });
    writeSkill(outside, "release", { description: "Release the app" });
    writeSkill(l.projectSkills, "lint", { description: "Lint the code" });
    writeSkill(l.globalSkills, "notes", { description: "Keep notes" });
    const described = async (remote: boolean) => {
      const { client, call } = await open(l, {
        flags: { project: l.project, "skills-dir": [inside, outside] },
        remote,
      });
      const description = (await client.listTools()).tools.find((t) => t.name === "skill")?.description ?? "";
      const entries = /<name>(.*)<\/name>\n<description>.*<\/description>\n<location>(.*)<\/location>/g;
      const listed = Object.fromEntries([...description.matchAll(entries)].map((m) => [m[1], m[2]]));
      const located = async (tool: string, args: Record<string, unknown>) =>
        Object.fromEntries(
          (await call(tool, args)).structuredContent?.skills.map((s: { name: string; location: string }) => [
            s.name,
            s.location,
          ]),
        );
      const searched = await located("search_skills", { query: "app code notes" });
      const flat = await located("list_skills", { flat: true });
      const expected = remote
        ? { deploy: "hub", lint: "hub", notes: "global", release: "global" }
        : { deploy: "project", lint: "project", notes: "global", release: "global" };
      expect({ listed, searched, flat }).toEqual({ listed: expected, searched: expected, flat: expected });
      return description;
    };
    const local = await described(false);
    expect(local).toContain(
      "<name>deploy</name>\n<description>Deploy the app</description>\n<location>project</location>",
    );
    expect(local).toContain(
      "<name>lint</name>\n<description>Lint the code</description>\n<location>project</location>",
    );
    const remote = await described(true);
    expect(remote).toContain(
      "<name>deploy</name>\n<description>Deploy the app</description>\n<location>hub</location>",
    );
    expect(remote).toContain("<name>lint</name>\n<description>Lint the code</description>\n<location>hub</location>");
    expect(remote).toContain("<name>notes</name>\n<description>Keep notes</description>\n<location>global</location>");
    expect(remote).not.toContain("<location>project</location>");
  });

  test("title, annotations and a strict input schema", async () => {
    const l = layout();
    const { client } = await open(l);
    const tool = (await client.listTools()).tools.find((t) => t.name === "skill");
    expect(tool?.title).toBe("Load Skill");
    expect(tool?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(tool?.inputSchema).toMatchObject({
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, description: "Name of the skill to load (case-insensitive)" },
        command: { type: "string", minLength: 1 },
      },
      additionalProperties: false,
    });
  });

  test("`command` is an alias of `name` (other skill tools' examples use it)", async () => {
    const l = layout();
    writeSkill(l.projectSkills, "pdf", { description: "PDF tools" });
    const { call, client } = await open(l);
    const description = (await client.listTools()).tools.find((t) => t.name === "skill")?.description ?? "";
    expect(description).toContain('`name: "pdf"` - invoke the pdf skill');
    expect(description).toContain('<command-message>The "{name}" skill is loading</command-message>');
    const byCommand = await call("skill", { command: "pdf" });
    expect(byCommand.isError).toBeFalsy();
    expect(textOf(byCommand)).toStartWith("Loading: pdf\n");
    expect(textOf(byCommand)).toEndWith('<command-message>The "pdf" skill is loading</command-message>');
    expect(textOf(await call("skill", { name: "pdf", command: "PDF" }))).toStartWith("Loading: pdf\n");
    expect(textOf(await call("skill", { name: "pdf", command: "git" }))).toContain(
      "`name` and `command` name different skills; give one of them",
    );
    for (const args of [{}, { command: "" }, { name: "pdf", command: "git" }]) {
      const bad = await call("skill", args);
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent).toMatchObject({ error: { code: "INVALID_ARGUMENT" } });
    }
    expect(textOf(await call("skill", {}))).toContain("give the skill's name in `name` (or `command`)");
  });

  test("the catalog fits Claude Code's 2,048-character cut", async () => {
    const l = layout();
    for (let i = 0; i < 200; i++)
      writeSkill(l.projectSkills, `skill-${i}`, {
        description: `A fairly long description for skill number ${i}, explaining when to use it.`,
      });
    const { client } = await open(l, { clientName: "claude-code" });
    const description = (await client.listTools()).tools.find((t) => t.name === "skill")?.description ?? "";
    expect(description.length).toBeLessThanOrEqual(2048);
    expect(description).toMatch(/…and \d+ more/);
  });

  test("any current name works even if the listing is stale or cut", async () => {
    const l = layout();
    for (let i = 0; i < 300; i++) writeSkill(l.projectSkills, `skill-${i}`);
    const { call } = await open(l, { clientName: "claude-code" });
    expect(textOf(await call("skill", { name: "skill-299" }))).toStartWith("Loading: skill-299\n");
  });

  test("hostile names never escape the catalog", async () => {
    const l = layout();
    writeSkill(l.projectSkills, "git");
    const { call } = await open(l);
    for (const name of [
      "../../../etc/passwd",
      ".ssh/id_rsa",
      "git/../../x",
      "/etc/passwd",
      "C:\\Windows",
      "git\u0000",
    ]) {
      const result = await call("skill", { name });
      expect(result.isError).toBe(true);
      expect(textOf(result)).not.toContain("root:");
    }
  });

  test("a disabled skill answers SKILL_DISABLED and is not listed", async () => {
    const l = layout();
    writeSkill(l.projectSkills, "git");
    writeSkill(l.projectSkills, "pdf");
    const { call, client } = await open(l, { env: { SKILLHUB_ENABLED_SKILLS: "pdf" } });
    const result = await call("skill", { name: "git" });
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { error: { code: string } }).error.code).toBe("SKILL_DISABLED");
    const description = (await client.listTools()).tools.find((t) => t.name === "skill")?.description ?? "";
    expect(description).toContain("<name>pdf</name>");
    expect(description).not.toContain("<name>git</name>");
  });

  test("an unknown tool is a protocol error, not a crash", async () => {
    const l = layout();
    const { client } = await open(l);
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow(/Unknown tool 'nope'/);
  });
});

describe("a skill removed from the disk since the last scan", () => {
  test.each([
    ["skill", { name: "vanish" }],
    ["load_skill", { skill_name: "vanish" }],
  ] as const)("%s says it is gone, offers it back nowhere, and starts the rescan that drops it", async (tool, args) => {
    const dir = tempDir("skillhub-gone-");
    writeSkill(dir, "vanish", { description: "A skill whose folder goes away" });
    writeSkill(dir, "stays", { description: "Another skill" });
    const { call } = await connectSession({
      flags: { "skills-dir": [dir] },
      env: { SKILLHUB_WATCH: "0", SKILLHUB_RESCAN_SECONDS: "0" },
    });
    rmSync(join(dir, "vanish"), { recursive: true });
    const result = await call(tool, args);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      error: {
        code: "SKILL_NOT_FOUND",
        message:
          "Skill 'vanish' not found: it was removed from the server since its last scan, which is running now. Use search_skills to find skills by topic.",
        skill: "vanish",
        suggestions: [],
      },
    });
    // The rescan it started drops the skill: the answer is now the unknown name's.
    await eventually(async () =>
      textOf(await call("skill", { name: "vanish" })).includes("Available skills:\n- stays"),
    );
  });
});
