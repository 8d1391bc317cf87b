import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, labelOfDir, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { textOf } from "../helpers/hub.ts";
import { cli, machine, serverOn } from "./cli.ts";
import { DECOY_KEY, decoy, leaked, linkedTree } from "./decoys.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

function code(result: { isError?: boolean; structuredContent?: Record<string, unknown> }): string | undefined {
  return result.isError ? (result.structuredContent as { error: { code: string } }).error.code : undefined;
}

describe("a lock records only what is served: nothing of a folder a skill links out to", () => {
  test("a tree node's resource folder linked out: no name or digest of its files in the lock, the project's or your own; verify and a frozen server pass", async () => {
    const m = machine();
    const ext = tempDir("skillhub-lock-ext-");
    const project = decoy();
    const own = decoy();
    linkedTree(m.skills, project);
    linkedTree(ext, own);
    // An explicit folder outside the project goes in your own lock; the project's folders, in its lock. The
    // project's first: verify given the folder compares the project skills it hides with the project's lock.
    for (const [args, file, label, { folder, leaks }] of [
      [[], m.lock, "project", project],
      [["--skills-dir", ext], join(m.home, ".skillhub", "skillhub.lock"), labelOfDir(ext), own],
    ] as const) {
      const locked = await cli(m, ["lock", ...args]);
      expect(locked.code).toBe(0);
      const text = readFileSync(file, "utf8");
      expect({ file, leaks: leaked(text + locked.out + locked.err, leaks) }).toEqual({ file, leaks: [] });
      const { skills } = JSON.parse(text);
      // The SKILL.md that is a link out of its folder is read by nothing, so no lock records that skill.
      expect(Object.keys(skills).sort()).toEqual([`${label}:tree/ok`, `${label}:tree/x`]);
      expect(skills[`${label}:tree/x`].files).toEqual({});
      expect(Object.keys(skills[`${label}:tree/ok`].files)).toEqual(["notes.txt"]);
      // What the folder links to is no business of the lock's: a change there is no difference.
      write(join(folder, "id_decoy_new"), DECOY_KEY);
      const verify = await cli(m, ["verify", ...args]);
      expect({ file, code: verify.code, leaks: leaked(verify.out + verify.err, leaks) }).toEqual({
        file,
        code: 0,
        leaks: [],
      });
    }

    const s = await serverOn(m);
    closers.push(s.close);
    const routed = await s.call("get_skill", { context: "deploy keys" });
    expect(routed.structuredContent).toMatchObject({ skill_path: "tree/x", assets: [] });
    const asset = await s.call("get_asset", { skill_path: "tree/x", file: "id_decoy" });
    expect(code(asset)).toBe("PATH_OUTSIDE_SKILL");
    for (const result of [routed, asset]) expect(textOf(result)).not.toContain("DECOY");
    expect(textOf(await s.call("get_asset", { skill_path: "tree/ok", file: "notes.txt" }))).toContain("release notes");
  });

  test("an Agent Skill's subfolder linked out: the lock holds none of its files; verify names the link alone, as for any link out", async () => {
    const m = machine();
    const { folder, leaks } = decoy();
    writeSkill(m.skills, "deploy", { description: "Deploys the app" });
    write(join(m.skills, "deploy", "notes.md"), "deploy notes\n");
    symlinkSync(folder, join(m.skills, "deploy", "scripts"));
    const locked = await cli(m, ["lock"]);
    expect(locked.code).toBe(0);
    expect(locked.err).toContain("added skill project:deploy file scripts: cannot be recorded by a lock");
    expect(leaked(locked.out + locked.err, leaks)).toEqual([]);
    const text = readFileSync(m.lock, "utf8");
    expect(leaked(text, leaks)).toEqual([]);
    expect(Object.keys(JSON.parse(text).skills["project:deploy"].files)).toEqual(["notes.md"]);

    const verify = await cli(m, ["verify"]);
    expect(verify.code).toBe(1);
    expect(verify.out).toContain("added skill project:deploy file scripts: cannot be recorded by a lock");
    expect(leaked(verify.out, leaks)).toEqual([]);

    const s = await serverOn(m);
    closers.push(s.close);
    const read = (file_path: string) => s.call("read_skill_file", { skill_name: "deploy", file_path });
    expect(textOf(await read("notes.md"))).toContain("deploy notes");
    const refused = await read("scripts/id_decoy");
    expect(code(refused)).toBe("PATH_OUTSIDE_SKILL");
    expect(textOf(refused)).not.toContain("DECOY");
  });
});
