import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { connect } from "../helpers/hub.ts";
import { writeNode } from "../helpers/tree.ts";
import { cli, machine } from "./cli.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/**
 * A team's skills folder, locked: a tree node `ops` whose server script uses a helper beside it, and an
 * Agent Skill `notes` (with a nested skill `notes/extra` of its own) for run_skill_command. `prepare`
 * adds to the folder before it is locked.
 */
async function lockedTeam(prepare: (team: string) => void = () => {}) {
  const m = machine();
  const team = tempDir("skillhub-frozen-exec-team-");
  writeNode(team, "ops.md", {
    keywords: ["deploy", "ops"],
    extra: [
      "scripts:",
      "  - file: scripts/check.sh",
      "    description: Checks",
      "    execution: server",
      "  - file: scripts/check.py",
      "    description: Checks in Python",
      "    execution: server",
    ].join("\n"),
  });
  write(join(team, "ops/scripts/check.py"), "import helper\nprint('reviewed', helper.name())\n");
  write(join(team, "ops/scripts/helper.py"), "def name():\n    return 'helper'\n");
  write(join(team, "ops/scripts/check.sh"), '. "$(dirname "$0")/helper.sh"\necho "reviewed $(helper)"\n');
  write(join(team, "ops/scripts/helper.sh"), "helper() { echo helper; }\n");
  writeSkill(team, "notes");
  write(join(team, "notes/notes.md"), "reviewed notes\n");
  writeSkill(join(team, "notes"), "extra");
  // A vendored package that ships a SKILL.md (no skill: the catalog never looks in node_modules), and a
  // link to a folder of the skill itself.
  writeSkill(join(team, "notes/node_modules"), "pkg");
  write(join(team, "notes/refs/a.md"), "a\n");
  symlinkSync("refs", join(team, "notes/lib"));
  prepare(team);
  const locked = await cli(m, ["lock", "--skills-dir", team]);
  expect(locked.code, locked.err).toBe(0);
  const s = await connect({
    home: m.home,
    cwd: m.project,
    env: { SKILLHUB_FROZEN: "1", SKILLHUB_TOOLS: "all", SKILLHUB_ENABLE_COMMANDS: "1", ALLOWED_COMMANDS: "cat,ls" },
    flags: { project: m.project, "skills-dir": [team] },
  });
  closers.push(s.close);
  const run = async (tool: string, args: Record<string, unknown>) => {
    const result = await s.call(tool, args);
    const sc = result.structuredContent as { stdout?: string; error?: { code: string; message: string } };
    return { error: result.isError ? sc.error : undefined, stdout: sc.stdout ?? "" };
  };
  const verify = () => cli(m, ["verify", "--skills-dir", team]);
  return { team, run, verify };
}

describe("a frozen server runs code only in a folder holding reviewed files alone", () => {
  test("run_script: a nested skill planted beside a reviewed script is refused, naming it", async () => {
    const { team, run } = await lockedTeam();
    const script = { skill_path: "ops", file: "scripts/check.sh" };
    expect(await run("run_script", script)).toEqual({ error: undefined, stdout: "reviewed helper\n" });
    // A folder that is a skill of its own is not the ops node's file: the lock of ops does not cover it.
    writeSkill(join(team, "ops/scripts"), "helper", { body: "planted\n" });
    const refused = await run("run_script", script);
    expect(refused.error?.code).toBe("FILE_NOT_LOCKED");
    expect(refused.error?.message).toContain("its folder holds 'scripts/helper', which skillhub.lock does not record");
    expect(refused.stdout).toBe("");
  });

  test("run_script: a Python script that imports a reviewed module runs again and again (no bytecode left behind)", async () => {
    // The server's own environment need not say so (many shells do): the child's always does.
    const saved = process.env.PYTHONDONTWRITEBYTECODE;
    delete process.env.PYTHONDONTWRITEBYTECODE;
    try {
      const { team, run } = await lockedTeam();
      const script = { skill_path: "ops", file: "scripts/check.py" };
      for (let i = 0; i < 2; i++)
        expect(await run("run_script", script)).toEqual({ error: undefined, stdout: "reviewed helper\n" });
      expect(existsSync(join(team, "ops/scripts/__pycache__"))).toBe(false);
    } finally {
      if (saved !== undefined) process.env.PYTHONDONTWRITEBYTECODE = saved;
    }
  });

  test("run_skill_command: version-control metadata added to a skill's folder is refused; a locked nested skill is not", async () => {
    const { team, run } = await lockedTeam();
    // The nested skill `notes/extra` is locked and unchanged: the parent's commands run.
    expect(await run("run_skill_command", { skill_name: "notes", command: "cat", args: ["notes.md"] })).toEqual({
      error: undefined,
      stdout: "reviewed notes\n",
    });
    write(join(team, "notes/.git/notes.md"), "unreviewed\n");
    for (const args of [[".git/notes.md"], ["notes.md"]]) {
      const refused = await run("run_skill_command", { skill_name: "notes", command: "cat", args });
      expect(refused.error?.code).toBe("FILE_NOT_LOCKED");
      expect(refused.error?.message).toContain("its folder holds '.git'");
      expect(refused.stdout).not.toContain("unreviewed");
    }
  });

  test("version-control metadata refuses any command in the folder, not a declared script", async () => {
    const { team, run } = await lockedTeam();
    write(join(team, "ops/.git/config"), "[core]\n");
    expect(await run("run_script", { skill_path: "ops", file: "scripts/check.sh" })).toEqual({
      error: undefined,
      stdout: "reviewed helper\n",
    });
    const refused = await run("run_skill_command", { skill_name: "ops", command: "ls", args: ["."] });
    expect(refused.error?.code).toBe("FILE_NOT_LOCKED");
    expect(refused.error?.message).toContain("runs no command: its folder holds '.git' (version-control metadata");
    expect(refused.error?.message).toContain("Its declared scripts still run with run_script");
  });

  test("run_skill_command: a SKILL.md rewritten a moment ago, before any rescan, is compared as it is on disk", async () => {
    const { team, run } = await lockedTeam();
    writeSkill(team, "notes", { body: "unreviewed instructions\n" });
    const refused = await run("run_skill_command", { skill_name: "notes", command: "cat", args: ["SKILL.md"] });
    expect(refused.error?.code).toBe("SKILL_LOCK_MISMATCH");
    expect(refused.error?.message).toContain("SKILL.md differs from skillhub.lock");
    expect(refused.stdout).not.toContain("unreviewed");
  });

  test("run_skill_command: a nested skill changed since review makes its parent's folder refuse code too", async () => {
    const { team, run } = await lockedTeam();
    writeSkill(join(team, "notes"), "extra", { body: "changed after review\n" });
    const refused = await run("run_skill_command", { skill_name: "notes", command: "ls", args: ["."] });
    expect(refused.error?.code).toBe("FILE_NOT_LOCKED");
    expect(refused.error?.message).toContain("its folder holds 'extra'");
  });

  test("a file the lock cannot record by its own name (white space at an end, a backslash, a drive letter) refuses code in its folder", async () => {
    // Reviewed with the skill, but SkillHub reads `notes.md ` as `notes.md`: no lock may vouch for it.
    const { team, run } = await lockedTeam((dir) => write(join(dir, "notes/notes.md "), "reviewed twin\n"));
    write(join(team, "notes/notes.md "), "UNREVIEWED rewrite\n");
    for (const name of ["notes.md ", "c:planted.md", "a\\b.md"]) {
      if (name !== "notes.md ") write(join(team, "notes", name), "UNREVIEWED planted\n");
      const refused = await run("run_skill_command", { skill_name: "notes", command: "cat", args: [name] });
      expect(refused.error?.code).toBe("FILE_NOT_LOCKED");
      expect(refused.error?.message).toContain("its folder holds '");
      expect(refused.stdout).not.toContain("UNREVIEWED");
    }
  });

  test("a file whose name is not UTF-8 refuses code in its folder, though a reviewed file's name reads alike", async () => {
    // Reviewed: a file named U+FFFD in UTF-8, which is what a name that is not UTF-8 reads as.
    const { team, run } = await lockedTeam((dir) => write(join(dir, "notes/\uFFFD"), "reviewed\n"));
    const cat = { skill_name: "notes", command: "cat", args: ["notes.md"] };
    expect(await run("run_skill_command", cat)).toEqual({ error: undefined, stdout: "reviewed notes\n" });
    writeFileSync(Buffer.from(`${join(team, "notes")}/\xff`, "latin1"), "UNREVIEWED planted\n");
    const refused = await run("run_skill_command", cat);
    // The reviewed file cannot be told from the planted one any more: it counts as gone.
    expect(refused.error?.code).toBe("SKILL_LOCK_MISMATCH");
    expect(refused.error?.message).toContain("\uFFFD");
    expect(refused.stdout).toBe("");
  });

  test("a SKILL.md added to a tree node's resource folder is a difference, and no code runs there", async () => {
    const { team, run, verify } = await lockedTeam();
    write(join(team, "ops/SKILL.md"), "UNREVIEWED instructions, no frontmatter\n");
    const script = await run("run_script", { skill_path: "ops", file: "scripts/check.sh" });
    const command = await run("run_skill_command", { skill_name: "ops", command: "cat", args: ["SKILL.md"] });
    for (const refused of [script, command]) {
      expect(refused.error?.code).toBe("SKILL_LOCK_MISMATCH");
      expect(refused.error?.message).toContain("(SKILL.md differs from skillhub.lock)");
      expect(refused.stdout).toBe("");
    }
    const verified = await verify();
    expect(verified.code).toBe(1);
    expect(verified.out).toContain(":ops file SKILL.md: new file (sha256:");
  });

  test("run_script: a folder only another file system takes for .git (.GIT, git~1) is no clone's: the script is refused", async () => {
    const { team, run } = await lockedTeam();
    write(join(team, "ops/scripts/.GIT/helper.sh"), "helper() { echo planted; }\n");
    const refused = await run("run_script", { skill_path: "ops", file: "scripts/check.sh" });
    expect(refused.error?.code).toBe("FILE_NOT_LOCKED");
    expect(refused.error?.message).toContain("its folder holds 'scripts/.GIT', which skillhub.lock does not record");
    expect(refused.stdout).toBe("");
  });
});
