import { afterAll, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { connect } from "../helpers/hub.ts";
import { writeScriptTree } from "../helpers/scripts.ts";
import { writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/** Paths no file can have here: through a file, through a link loop, with a name longer than the system allows. */
const ODD = ["notes.txt/x", "loop/x", `${"a".repeat(300)}/x`];

describe("a path that cannot be statted is an answer, never a failure", () => {
  test("a tree node declaring such assets: a diagnostic, and every skill of every folder still served", async () => {
    const good = tempDir("skillhub-odd-good-");
    writeSkill(good, "pdf", { description: "An Agent Skill in another folder" });
    const tree = tempDir("skillhub-odd-tree-");
    writeNode(tree, "_root.md", { keywords: ["global"] });
    writeNode(tree, "api.md", {
      keywords: ["api"],
      extra: ["assets:", ...ODD.flatMap((file) => [`  - file: ${file}`, "    type: other"])].join("\n"),
    });
    write(join(tree, "api", "notes.txt"), "notes\n");
    symlinkSync("loop", join(tree, "api", "loop"));
    const s = await connect({ flags: { "skills-dir": [good, tree] } });
    closers.push(s.close);
    expect(s.hub.catalog.skills.map((skill) => skill.name).sort()).toEqual(["_root", "api", "pdf"]);
    const missing = s.hub.catalog.diagnostics.filter((d) => d.file.endsWith("api.md") && d.code === "missing-file");
    expect(missing).toHaveLength(ODD.length);
    for (const file of ODD) {
      const asset = await s.call("get_asset", { skill_path: "api", file });
      expect(JSON.stringify(asset)).not.toContain("INTERNAL_ERROR");
      expect(asset.isError).toBe(true);
    }
  });

  test("run_skill_command arguments and run_script's cwd: refused or not found, with a code", async () => {
    const skills = tempDir("skillhub-odd-cmd-");
    writeSkill(skills, "pdf", { description: "pdf" });
    symlinkSync("loop", join(skills, "pdf", "loop"));
    const s = await connect({
      flags: { "skills-dir": [skills] },
      env: { SKILLHUB_TOOLS: "all", SKILLHUB_ENABLE_COMMANDS: "1", ALLOWED_COMMANDS: "cat" },
    });
    closers.push(s.close);
    for (const arg of ["SKILL.md/x", ...ODD.slice(1)]) {
      const ran = await s.call("run_skill_command", { skill_name: "pdf", command: "cat", args: [arg] });
      expect({ arg, internal: JSON.stringify(ran).includes("INTERNAL_ERROR") }).toEqual({ arg, internal: false });
    }
    const project = tempDir("skillhub-odd-project-");
    write(join(project, "file.txt"), "x\n");
    symlinkSync("loop", join(project, "loop"));
    const scripts = await connect({
      flags: { "skills-dir": [writeScriptTree(tempDir("skillhub-odd-scripts-"))] },
      env: { SKILLHUB_TOOLS: "all", SKILLHUB_PROJECT_DIR: project },
    });
    closers.push(scripts.close);
    for (const cwd of ["file.txt/x", ...ODD.slice(1)]) {
      const ran = await scripts.call("run_script", {
        skill_path: "tools/echo",
        file: "scripts/args.sh",
        args: { name: "Ada" },
        cwd,
      });
      expect({ cwd, code: (ran.structuredContent as { error?: { code: string } }).error?.code }).toEqual({
        cwd,
        code: "INVALID_ARGUMENT",
      });
    }
  });

  test("validate on such a path: exit 2 saying there is no such folder", async () => {
    const dir = tempDir("skillhub-odd-validate-");
    write(join(dir, "file.txt"), "x\n");
    symlinkSync("loop", join(dir, "loop"));
    for (const arg of ["file.txt/x", "loop/x"]) {
      const result = await runCli(["validate", join(dir, arg)], {});
      expect({ arg, code: result.code }).toEqual({ arg, code: 2 });
      expect(result.err).toContain("no such folder");
    }
  });
});
