import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { connect } from "../helpers/hub.ts";
import { cli, machine, serverOn } from "../lock/cli.ts";

afterAll(cleanupTemp);

/** Names a plain JavaScript object answers for without holding them. */
const NAMES = ["__proto__", "constructor"];

describe("files named like Object.prototype's members are files like any other for the lock", () => {
  test("planted in a locked skill: verify names them, a frozen server runs nothing there and serves neither", async () => {
    const m = machine();
    const team = tempDir("skillhub-proto-team-");
    writeSkill(team, "notes");
    write(join(team, "notes/notes.md"), "reviewed notes\n");
    expect((await cli(m, ["lock", "--skills-dir", team])).code).toBe(0);
    for (const name of NAMES) write(join(team, "notes", name), "UNREVIEWED payload\n");

    const verified = await cli(m, ["verify", "--skills-dir", team]);
    expect(verified.code).toBe(1);
    for (const name of NAMES) expect(verified.out).toMatch(new RegExp(`file ${name}: new file \\(sha256:`));

    const s = await connect({
      home: m.home,
      cwd: m.project,
      env: { SKILLHUB_FROZEN: "1", SKILLHUB_ENABLE_COMMANDS: "1", ALLOWED_COMMANDS: "cat" },
      flags: { project: m.project, "skills-dir": [team] },
    });
    try {
      const ran = await s.call("run_skill_command", { skill_name: "notes", command: "cat", args: ["__proto__"] });
      expect(ran.isError).toBe(true);
      expect((ran.structuredContent as { error: { code: string } }).error.code).toBe("SKILL_LOCK_MISMATCH");
      expect(JSON.stringify(ran)).not.toContain("UNREVIEWED");
      for (const name of NAMES) {
        const read = await s.call("read_skill_file", { skill_name: "notes", file_path: name });
        expect(read.isError).toBe(true);
        expect((read.structuredContent as { error: { code: string } }).error.code).toBe("FILE_NOT_LOCKED");
      }
      expect((await s.call("read_skill_file", { skill_name: "notes", file_path: "notes.md" })).isError).toBeFalsy();
    } finally {
      await s.close();
    }
  });

  test("reviewed: lock records them, verify compares them, a frozen server serves them and runs beside them", async () => {
    const m = machine();
    writeSkill(m.skills, "notes");
    for (const name of NAMES) write(join(m.skills, "notes", name), `reviewed ${name}\n`);
    expect((await cli(m, ["lock"])).code).toBe(0);
    const files = JSON.parse(readFileSync(m.lock, "utf8")).skills["project:notes"].files;
    expect(Object.keys(files).sort()).toEqual([...NAMES].sort());
    expect((await cli(m, ["verify"])).code).toBe(0);

    const s = await serverOn(m, { SKILLHUB_FROZEN: "1", SKILLHUB_ENABLE_COMMANDS: "1", ALLOWED_COMMANDS: "cat" });
    try {
      for (const name of NAMES) {
        const read = await s.call("read_skill_file", { skill_name: "notes", file_path: name });
        expect(read.isError).toBeFalsy();
        expect(JSON.stringify(read)).toContain(`reviewed ${name}`);
      }
      // The project's own skill: commands run in its folder only with the user's word.
      s.hub.config.scripts.allow_project = true;
      const ran = await s.call("run_skill_command", { skill_name: "notes", command: "cat", args: ["__proto__"] });
      expect(ran.isError).toBeFalsy();
      expect(JSON.stringify(ran)).toContain("reviewed __proto__");
    } finally {
      await s.close();
    }

    write(join(m.skills, "notes", "__proto__"), "changed\n");
    const changed = await cli(m, ["verify"]);
    expect(changed.code).toBe(1);
    expect(changed.out).toContain("changed skill project:notes file __proto__: sha256:");
  });
});
