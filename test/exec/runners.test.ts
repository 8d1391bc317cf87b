import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { commandRunner, defaultWhich, runnerPrograms, scriptRunner } from "../../src/exec/runners.ts";
import { confinesRemote, resolveWorkingDir } from "../../src/exec/working-dir.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";

afterAll(cleanupTemp);

const runners = {
  ".sh": "bash",
  ".ts": "skillhub",
  ".js": "skillhub",
  ".py": "python3",
  ".mjs": "npx tsx --quiet",
  ".rb": "/opt/none/ruby",
};
const fakeWhich = (found: Record<string, string>) => (command: string) => found[command] ?? null;

describe("scriptRunner", () => {
  test("skillhub: the running executable as Bun (BUN_BE_BUN=1), no .env autoload", () => {
    const host = { execPath: "/usr/local/bin/skillhub", which: fakeWhich({}) };
    expect(scriptRunner(".ts", runners, host, "/bin")).toEqual({
      ok: true,
      runner: {
        argv: ["/usr/local/bin/skillhub", "--no-env-file", "--no-install", "--config=/dev/null"],
        env: { BUN_BE_BUN: "1" },
        configured: "skillhub",
      },
    });
  });

  test("a name is found on PATH; fixed arguments follow; an unconfigured extension has no runner; a missing one says so", () => {
    const host = { execPath: "/x", which: fakeWhich({ bash: "/usr/bin/bash", npx: "/usr/bin/npx" }) };
    expect(scriptRunner(".sh", runners, host, "/usr/bin")).toMatchObject({
      ok: true,
      runner: { argv: ["/usr/bin/bash"], env: {} },
    });
    expect(scriptRunner(".mjs", runners, host, "/usr/bin")).toMatchObject({
      ok: true,
      runner: { argv: ["/usr/bin/npx", "tsx", "--quiet"] },
    });
    expect(scriptRunner(".lua", runners, host, "/usr/bin")).toEqual({ ok: false, reason: "none" });
    expect(scriptRunner(".py", runners, host, "/usr/bin")).toEqual({
      ok: false,
      reason: "missing",
      configured: "python3",
      executable: "python3",
    });
    expect(scriptRunner(".rb", runners, host, "/usr/bin")).toMatchObject({ ok: false, reason: "missing" });
  });
});

describe("commandRunner", () => {
  test("python and python3 run as `uv run python` when uv is on PATH, else as python3", () => {
    const withUv = { execPath: "/x", which: fakeWhich({ uv: "/bin/uv", python3: "/bin/python3" }) };
    const withoutUv = { execPath: "/x", which: fakeWhich({ python3: "/bin/python3" }) };
    for (const name of ["python", "python3"]) {
      expect(commandRunner(name, withUv, "/bin")).toMatchObject({
        ok: true,
        runner: { argv: ["/bin/uv", "run", "python"] },
      });
      expect(commandRunner(name, withoutUv, "/bin")).toMatchObject({ ok: true, runner: { argv: ["/bin/python3"] } });
    }
    expect(commandRunner("python", { execPath: "/x", which: fakeWhich({}) }, "/bin")).toMatchObject({
      ok: false,
      reason: "missing",
    });
    expect(commandRunner("ls", withUv, "/bin")).toEqual({
      ok: false,
      reason: "missing",
      configured: "ls",
      executable: "ls",
    });
  });
});

describe("runnerPrograms", () => {
  test("every program a script or command starts, by a name that is no path; a configured path even when missing", () => {
    const host = {
      execPath: "/usr/local/bin/skillhub",
      which: fakeWhich({ bash: "/usr/bin/bash", npx: "/usr/bin/npx", uv: "/home/ana/.local/bin/uv", ls: "/bin/ls" }),
    };
    expect(runnerPrograms(runners, ["python", "ls", "not-installed"], host, "/usr/bin")).toEqual([
      ["/usr/bin/bash", "<program 'bash'>"],
      ["/usr/local/bin/skillhub", "<program 'skillhub'>"],
      ["/usr/bin/npx", "<program 'npx'>"],
      ["/opt/none/ruby", "<program 'ruby'>"],
      ["/home/ana/.local/bin/uv", "<program 'uv'>"],
      ["/bin/ls", "<program 'ls'>"],
    ]);
    expect(runnerPrograms({}, [], host, "/usr/bin")).toEqual([]);
  });
});

describe("defaultWhich", () => {
  test("only absolute PATH entries count: a skill folder on a relative PATH entry cannot shadow a command", () => {
    const dir = tempDir("skillhub-which-");
    chmodSync(write(join(dir, "cat"), "#!/bin/sh\necho fake\n"), 0o755);
    expect(defaultWhich("cat", `${dir}`)).toBe(join(dir, "cat"));
    const rel = `.:${dir.slice(1)}:`;
    expect(defaultWhich("cat", rel)).toBeNull();
  });
});

describe("resolveWorkingDir", () => {
  test("absent → the base; relative → under the base; it must be an existing folder", () => {
    const base = tempDir("skillhub-cwd-");
    write(join(base, "sub", "file.txt"), "x");
    expect(resolveWorkingDir(undefined, base)).toEqual({ ok: true, dir: base });
    expect(resolveWorkingDir("sub", base)).toEqual({ ok: true, dir: join(base, "sub") });
    expect(resolveWorkingDir(join(base, "sub"), "/")).toEqual({ ok: true, dir: join(base, "sub") });
    expect(resolveWorkingDir("nope", base)).toEqual({
      ok: false,
      reason: `cwd 'nope' (${join(base, "nope")}) does not exist`,
    });
    expect(resolveWorkingDir("sub/file.txt", base)).toEqual({
      ok: false,
      reason: `cwd 'sub/file.txt' (${join(base, "sub", "file.txt")}) is not a folder`,
    });
  });

  test("an absolute cwd is named once, through the caller's quote", () => {
    const base = tempDir("skillhub-cwd-");
    const missing = join(base, "nope");
    expect(resolveWorkingDir(missing, base)).toEqual({ ok: false, reason: `cwd '${missing}' does not exist` });
    expect(resolveWorkingDir(missing, base, undefined, (text) => `<${text.length}>`)).toEqual({
      ok: false,
      reason: `cwd <${missing.length}> does not exist`,
    });
  });

  test("a remote cwd's project may not hold the server's home, in any case where names ignore case", () => {
    const project = tempDir("skillhub-Project-");
    const home = join(project, "users", "ana");
    expect(confinesRemote(project, tempDir("skillhub-home-"))).toBe(true);
    expect(confinesRemote(project, home)).toBe(false);
    // Windows: the same folders written in another case.
    const shouted = join(project.toUpperCase(), "USERS", "ANA");
    expect(confinesRemote(project, shouted, "linux")).toBe(true);
    expect(confinesRemote(project, shouted, "win32")).toBe(false);
  });
});
