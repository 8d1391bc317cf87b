import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { programName } from "../../src/util/program-name.ts";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";

afterAll(cleanupTemp);

const COMPILED = "/$bunfs/root/skillhub";

/** An executable file at `path`, standing for the binary. */
function executable(path: string): string {
  write(path, "#!/bin/sh\n");
  chmodSync(path, 0o755);
  return path;
}

/** A folder for PATH holding `skillhub`, a link to `target`. */
function linkedOnPath(target: string): string {
  const bin = tempDir();
  symlinkSync(target, join(bin, "skillhub"));
  return bin;
}

describe("programName: how a hint spells the program", () => {
  test("the name typed when the shell found it on PATH, the path as typed otherwise", () => {
    const exe = executable(join(tempDir(), "dist", "skillhub"));
    const none = tempDir();
    const spelled = (argv0: string, path = none) => programName({ argv0, execPath: exe, main: COMPILED, path });
    expect(spelled("skillhub")).toBe("skillhub");
    expect(spelled("dist/skillhub")).toBe("dist/skillhub");
    expect(spelled("./skillhub")).toBe("./skillhub");
    expect(spelled(exe)).toBe(exe);
    // A path the shell would split is quoted, as the user would have typed it.
    expect(spelled("my tools/skillhub")).toBe("'my tools/skillhub'");
    // Typed as a path, but `skillhub` on PATH is this very binary: the short name works.
    expect(spelled("dist/skillhub", linkedOnPath(exe))).toBe("skillhub");
    // Another binary by that name on PATH (an older install) is not this one.
    expect(spelled("dist/skillhub", linkedOnPath(executable(join(tempDir(), "skillhub"))))).toBe("dist/skillhub");
  });

  test("a name the program was started under that is no command (exec -a) gives way to its path", () => {
    const exe = executable(join(tempDir(), "dist", "skillhub"));
    const spelled = (argv0: string, path = tempDir()) => programName({ argv0, execPath: exe, main: COMPILED, path });
    for (const odd of ["my tool", "", "-bash", "$(x)"]) expect(spelled(odd)).toBe(exe);
    expect(spelled("-bash", linkedOnPath(exe))).toBe("skillhub");
    expect(spelled("skillhub.exe")).toBe("skillhub.exe");
  });

  test("npx's cache, npm's launcher and a run from source", () => {
    const npx = "/home/u/.npm/_npx/0a1b2c/node_modules/@skillhub-dev/skillhub-linux-x64/bin/skillhub";
    expect(programName({ argv0: npx, execPath: npx, main: COMPILED, path: "" })).toBe("npx skillhub");
    // npm's `skillhub` on PATH is a Node launcher that starts the binary from node_modules.
    const root = tempDir();
    const native = executable(join(root, "node_modules", "@skillhub-dev", "skillhub-linux-x64", "bin", "skillhub"));
    const launcher = executable(join(root, "node_modules", "skillhub", "bin", "skillhub.js"));
    const bin = join(root, "bin");
    mkdirSync(bin);
    symlinkSync(launcher, join(bin, "skillhub"));
    expect(programName({ argv0: native, execPath: native, main: COMPILED, path: bin })).toBe("skillhub");
    expect(programName({ argv0: "bun", execPath: "/usr/bin/bun", main: "/src/skillhub/src/cli.ts" })).toBe("skillhub");
  });
});

describe("hints name the program as it was run", () => {
  /** A folder whose only skill is broken: `list` ends with a hint naming two commands. */
  function brokenSkills(): string {
    const dir = tempDir();
    write(join(dir, "bad", "SKILL.md"), "no frontmatter\n");
    return dir;
  }

  /** The compiled binary started with `argv0` as its name, as a shell does for what was typed, in `cwd`. */
  function typed(argv0: string, args: string[], path = process.env.PATH ?? "", cwd?: string) {
    const home = tempDir();
    const proc = Bun.spawnSync([binary(), ...args], {
      argv0,
      cwd: cwd ?? home,
      env: { PATH: path, HOME: home, LOG_LEVEL: "WARN" },
      stdout: "pipe",
      stderr: "pipe",
    });
    return { code: proc.exitCode, out: proc.stdout.toString(), err: proc.stderr.toString() };
  }

  test("run as dist/skillhub, a hint and a usage error say dist/skillhub", () => {
    const listed = typed("dist/skillhub", ["list", "--skills-dir", brokenSkills()]);
    expect(listed.code).toBe(1);
    expect(listed.err).toEndWith(
      "Fix them (dist/skillhub validate DIR explains each rule), then run dist/skillhub list again.\n",
    );
    const usage = typed("dist/skillhub", ["list", "--bogus"]);
    expect(usage.code).toBe(2);
    expect(usage.err).toBe("skillhub: unknown option --bogus.\nRun 'dist/skillhub list --help' for usage.\n");
    expect(typed("dist/skillhub", ["add", "--help"]).out).toEndWith(
      "\nHere skillhub is dist/skillhub; dist/skillhub --help lists every command.\n",
    );
  });

  test("run as dist/skillhub, a hint built by the lock's comparison says dist/skillhub", () => {
    const project = tempDir();
    const notes = join(project, ".agents", "skills", "notes");
    write(join(notes, "SKILL.md"), "---\nname: notes\ndescription: Take notes\n---\nBody\n");
    expect(typed("dist/skillhub", ["lock", "--project", project], undefined, project).code).toBe(0);
    // A SKILL.md that is no skill, inside the skill's folder: no lock can record it.
    write(join(notes, "scripts", "helper", "SKILL.md"), "no frontmatter\n");
    const verify = typed("dist/skillhub", ["verify", "--project", project], undefined, project);
    expect(verify.code).toBe(1);
    expect(verify.out).toContain("its SKILL.md is no skill SkillHub serves (`dist/skillhub doctor` says why)");
    expect(verify.out).toEndWith("rename or remove it, then run `dist/skillhub lock`.\n");
  });

  test("run by its path while `skillhub` on PATH is this binary, hints say skillhub", () => {
    const path = `${linkedOnPath(binary())}:${process.env.PATH ?? ""}`;
    const listed = typed(binary(), ["list", "--skills-dir", brokenSkills()], path);
    expect(listed.err).toEndWith(
      "Fix them (skillhub validate DIR explains each rule), then run skillhub list again.\n",
    );
  });
});
