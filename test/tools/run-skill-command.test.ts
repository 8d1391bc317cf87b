import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defaultSpawn, type SpawnFn } from "../../src/exec/process.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { type ConnectOptions, connect } from "../helpers/hub.ts";
import { writeNode } from "../helpers/tree.ts";
import { eventually } from "../helpers/wait.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/** Two Agent Skills side by side; `pdf` has a script and a symlink leading out. */
function skills(): string {
  const dir = tempDir("skillhub-cmd-");
  writeSkill(dir, "pdf", { description: "Extract invoices from PDF files" });
  write(
    join(dir, "pdf", "extract.py"),
    "import os, sys\nprint('cwd=' + os.getcwd())\nprint('args=' + ' '.join(sys.argv[1:]))\n",
  );
  write(join(dir, "pdf", "notes.txt"), "0123456789abcdefghij\n");
  writeSkill(dir, "other", { description: "Another skill" });
  symlinkSync(join(dir, "other", "SKILL.md"), join(dir, "pdf", "escape.md"));
  return dir;
}

async function open(env: Record<string, string> = {}, options: ConnectOptions = {}) {
  const dir = skills();
  const session = await connect({ ...options, flags: { "skills-dir": [dir], ...options.flags }, env });
  closers.push(session.close);
  const events: { type: string; data: Record<string, unknown> }[] = [];
  session.hub.track = (type, data) => {
    events.push({ type, data });
    return "queued";
  };
  const names = async () => (await session.client.listTools()).tools.map((t) => t.name);
  const cmd = (command: string, args?: string[], skill = "pdf") =>
    session.call("run_skill_command", { skill_name: skill, command, ...(args ? { args } : {}) });
  return { ...session, dir, events, names, cmd };
}

type Err = { error: { code: string; message: string } };
const error = (r: { structuredContent?: unknown }) => (r.structuredContent as Err).error;

describe("run_skill_command: off unless enabled", () => {
  test.each(["auto", "hub", "all", "run_skill_command,skill"])(
    "profile %s: not listed, and a call is the SDK's unknown tool",
    async (tools) => {
      const { names, cmd } = await open({ SKILLHUB_TOOLS: tools });
      expect(await names()).not.toContain("run_skill_command");
      await expect(cmd("ls")).rejects.toThrow(/Unknown tool 'run_skill_command'/);
    },
  );

  test("--enable-commands or SKILLHUB_ENABLE_COMMANDS=1: listed in auto and hub", async () => {
    expect(await (await open({ SKILLHUB_ENABLE_COMMANDS: "1" })).names()).toContain("run_skill_command");
    expect(await (await open({ SKILLHUB_TOOLS: "hub" }, { flags: { "enable-commands": true } })).names()).toEqual([
      "search_skills",
      "load_skill",
      "read_skill_file",
      "run_skill_command",
    ]);
  });
});

describe("run_skill_command when enabled", () => {
  const on = (env: Record<string, string> = {}, options: ConnectOptions = {}) =>
    open({ SKILLHUB_ENABLE_COMMANDS: "1", ...env }, options);

  test("runs an allowed command in the skill's folder: the documented result shape; a script_executed event", async () => {
    const { cmd, events } = await on();
    const result = await cmd("ls");
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      stdout: "SKILL.md\nescape.md\nextract.py\nnotes.txt\n",
      stderr: "",
      exit_code: 0,
      timeout: false,
      truncated: { stdout: false, stderr: false },
    });
    expect(events[0]).toMatchObject({
      type: "script_executed",
      data: { skill_path: "pdf", file: "ls", execution_mode: "command", success: true, exit_code: 0, args_count: 0 },
    });
    expect((await cmd("grep", ["-c", "invoices", "SKILL.md"])).structuredContent).toMatchObject({
      stdout: "1\n",
      exit_code: 0,
    });
    // Argument values never reach analytics: only how many there were.
    expect(events[1]?.data).toMatchObject({ file: "grep", args_count: 3 });
    expect(events[1]?.data).not.toHaveProperty("args_provided");
    expect(JSON.stringify(events)).not.toContain("invoices");
    expect((await cmd("cat", ["missing.txt"])).structuredContent).toMatchObject({ exit_code: 1, stdout: "" });
  });

  test("python: through `uv run python` when uv is on PATH, else python3; cwd is the skill's folder", async () => {
    const fakeBin = tempDir("skillhub-fake-uv-");
    const uv = write(join(fakeBin, "uv"), '#!/bin/sh\necho "uv $*"\n');
    chmodSync(uv, 0o755);
    const withUv = await on({}, { hub: { exec: { env: { ...process.env, PATH: `${fakeBin}:${process.env.PATH}` } } } });
    expect((await withUv.cmd("python", ["extract.py", "in.pdf"])).structuredContent).toMatchObject({
      stdout: "uv run python extract.py in.pdf\n",
      exit_code: 0,
    });
    const plain = await on(
      {},
      {
        hub: {
          exec: {
            env: {
              ...process.env,
              PATH: (process.env.PATH ?? "")
                .split(":")
                .filter((p) => !Bun.which("uv", { PATH: p }))
                .join(":"),
            },
          },
        },
      },
    );
    const result = await plain.cmd("python", ["extract.py", "in.pdf"]);
    expect(result.structuredContent).toMatchObject({
      stdout: `cwd=${realpathSync(join(plain.dir, "pdf"))}\nargs=in.pdf\n`,
      exit_code: 0,
    });
  });

  test("COMMAND_NOT_ALLOWED: a name off the allow-list, or any command given as a path", async () => {
    const { cmd } = await on();
    expect(error(await cmd("bash", ["-c", "id"]))).toMatchObject({
      code: "COMMAND_NOT_ALLOWED",
      message:
        "Command 'bash' is not allowed on this server. Allowed commands: python, uv, node, cat, ls, grep (ALLOWED_COMMANDS).",
    });
    for (const command of ["/bin/ls", "./ls", "../ls", "bin/cat", "python3"])
      expect(error(await cmd(command)).code).toBe("COMMAND_NOT_ALLOWED");
    expect(error(await cmd("/bin/ls")).message).toBe(
      "Command '/bin/ls' is a path; give a bare command name from the allow-list (e.g. python, ls). Allowed commands: python, uv, node, cat, ls, grep.",
    );
    const custom = await on({ ALLOWED_COMMANDS: "cat,bash" });
    expect((await custom.cmd("bash", ["-c", "echo hi"])).structuredContent).toMatchObject({ stdout: "hi\n" });
    expect(error(await custom.cmd("ls")).code).toBe("COMMAND_NOT_ALLOWED");
  });

  test("INVALID_ARGUMENT: one argument of 128 KiB or more, or all of them over 256 KiB, before any path is looked at", async () => {
    const { cmd } = await on();
    // Linux's exec counts an argument's terminating NUL: 131,072 bytes fail there, so they are refused here.
    const long = error(await cmd("grep", [`-${"a".repeat(128 * 1024 - 1)}`, "notes.txt"]));
    expect(long.code).toBe("INVALID_ARGUMENT");
    expect(long.message).toStartWith("Argument 1 is 131072 bytes; a command takes at most 131071 bytes in it.");
    // The longest argument taken does start the command (cat then finds no file of that name).
    expect((await cmd("cat", ["a".repeat(128 * 1024 - 1)])).structuredContent).toMatchObject({ exit_code: 1 });
    const many = error(
      await cmd(
        "grep",
        Array.from({ length: 1100 }, () => `-${"a".repeat(255)}`),
      ),
    );
    expect(many.code).toBe("INVALID_ARGUMENT");
    expect(many.message).toStartWith("The arguments are 281600 bytes together; a command takes at most 262144.");
    expect((await cmd("grep", ["-c", "a".repeat(1000), "notes.txt"])).structuredContent).toMatchObject({
      exit_code: 1,
    });
  });

  test("PATH_OUTSIDE_SKILL: '..', absolute paths and symlinks leading out of the skill's folder", async () => {
    const { cmd } = await on();
    for (const args of [
      ["../other/SKILL.md"],
      ["/etc/passwd"],
      ["escape.md"],
      ["--file=../other/SKILL.md"],
      ["notes.txt", "../other/SKILL.md"],
    ]) {
      expect(error(await cmd("cat", args)).code).toBe("PATH_OUTSIDE_SKILL");
    }
    // `grep -f/etc/passwd` reads a file outside the skill: its exit code tells whether a line matched.
    for (const args of [
      ["-f/etc/passwd", "notes.txt"],
      ["-rf../other/SKILL.md", "."],
      // A digit is an option too (grep's `-5` is a context of 5 lines): `-a5f/etc/passwd` reads /etc/passwd.
      ["-5f/etc/passwd", "notes.txt"],
      ["-a5f/etc/passwd", "notes.txt"],
      ["-1rf../other/SKILL.md", "."],
    ])
      expect(error(await cmd("grep", args)).code).toBe("PATH_OUTSIDE_SKILL");
    expect(error(await cmd("cat", ["../other/SKILL.md"])).message).toBe(
      "Argument '../other/SKILL.md' contains '..'; only paths inside the skill's folder are allowed. Commands run in the skill's folder; give paths relative to it, without '..'.",
    );
  });

  test("a refused argument is quoted cut to 80 characters, its NUL and direction marks as \\u escapes", async () => {
    const { cmd } = await on();
    const long = `../${"a".repeat(131_000)}`;
    for (const [command, args, quoted] of [
      // A path cut short is left out from where it starts (the path sweep: a cut path tells no folder).
      ["cat", [long], "'…'"],
      ["cat", [`--file=/${"b".repeat(131_000)}`], "'…'"],
      ["cat", ["a\0\u202eb"], "'a\\u0000\\u202eb'"],
      ["grep", [`--dereference-recursive${"c".repeat(100)}`, "x"], `'--dereference-recursive${"c".repeat(57)}…'`],
    ] as const) {
      const result = await cmd(command, [...args]);
      expect(error(result).message).toContain(` ${quoted} `);
      expect(JSON.stringify(result).length).toBeLessThan(2000);
    }
  });

  test("PATH_OUTSIDE_SKILL: a path after '=' or '@' (dd if=, curl -d @file) or in a file: URL; inside ones run", async () => {
    const { cmd } = await on({ ALLOWED_COMMANDS: "dd,curl,grep" });
    for (const [command, args] of [
      ["dd", ["if=../other/SKILL.md", "status=none"]],
      ["dd", ["if=escape.md", "status=none"]],
      ["dd", ["if=notes.txt", "of=../other/copy.txt", "status=none"]],
      ["curl", ["-s", "-d", "@/etc/passwd", "http://127.0.0.1:9/"]],
      ["curl", ["-s", "-F", "x=@../other/SKILL.md", "http://127.0.0.1:9/"]],
      ["curl", ["-s", "file:///etc/passwd"]],
      ["curl", ["-s", "FILE:%2E%2E/other/SKILL.md"]],
    ] as const)
      expect({ command, args, code: error(await cmd(command, [...args])).code }).toEqual({
        command,
        args,
        code: "PATH_OUTSIDE_SKILL",
      });
    expect(error(await cmd("dd", ["if=../other/SKILL.md"])).message).toBe(
      "Argument 'if=../other/SKILL.md' contains '..'; only paths inside the skill's folder are allowed (what follows '=' or '@' counts as a path: give a path inside the skill's folder, or, for text that is no path, write [=] or [@] in a pattern and %2F for / in a URL). Commands run in the skill's folder; give paths relative to it, without '..'.",
    );
    // A path inside the folder after '=', and '=' or '@' before text that is no path, still run.
    expect((await cmd("dd", ["if=notes.txt", "status=none"])).structuredContent).toMatchObject({
      stdout: "0123456789abcdefghij\n",
      exit_code: 0,
    });
    expect((await cmd("grep", ["-c", "a=b", "notes.txt"])).structuredContent).toMatchObject({ stdout: "0\n" });
    expect((await cmd("grep", ["-c", "user@example.com", "notes.txt"])).structuredContent).toMatchObject({
      stdout: "0\n",
    });
  });

  test("an argument longer than any file name (a long pattern) is no path, and runs", async () => {
    const { cmd } = await on();
    const pattern = `${"needle ".repeat(60)}end`;
    const result = await cmd("grep", ["-c", pattern, "notes.txt"]);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ stdout: "0\n", exit_code: 1 });
  });

  test("skill filters apply: SKILL_NOT_FOUND, SKILL_DISABLED", async () => {
    const { cmd } = await on({ SKILLHUB_ENABLED_SKILLS: "other" });
    expect(error(await cmd("ls", [], "nope")).code).toBe("SKILL_NOT_FOUND");
    expect(error(await cmd("ls", [], "pdf")).code).toBe("SKILL_DISABLED");
    expect((await cmd("ls", [], "other")).structuredContent).toMatchObject({ stdout: "SKILL.md\n" });
  });

  test("EXEC_TIMEOUT_SECONDS: killed, timeout true, exit code 137; EXEC_MAX_OUTPUT_BYTES: truncated flags", async () => {
    const { cmd } = await on({ ALLOWED_COMMANDS: "sleep,cat", EXEC_TIMEOUT_SECONDS: "1", EXEC_MAX_OUTPUT_BYTES: "10" });
    const slow = await cmd("sleep", ["30"]);
    expect(slow.structuredContent).toEqual({
      stdout: "",
      stderr: "",
      exit_code: 137,
      timeout: true,
      truncated: { stdout: false, stderr: false },
    });
    const long = await cmd("cat", ["notes.txt", "missing"]);
    expect(long.structuredContent).toMatchObject({
      stdout: "0123456789",
      exit_code: 1,
      timeout: false,
      truncated: { stdout: true, stderr: true },
    });
    expect(String(long.structuredContent?.stderr)).toHaveLength(10);
  });

  test("an allowed command that is not installed: NO_RUNNER; the server's secrets never reach the command", async () => {
    const secrets = {
      GITHUB_TOKEN: "ghp_cmdsecret1",
      OPENAI_API_KEY: "sk-cmdsecret2",
      SKILLHUB_HTTP_TOKEN: "http-cmdsecret3",
    };
    const { cmd } = await on(
      { ALLOWED_COMMANDS: "env,no-such-command-here" },
      { hub: { exec: { env: { ...process.env, ...secrets } } } },
    );
    expect(error(await cmd("no-such-command-here")).code).toBe("NO_RUNNER");
    const stdout = String((await cmd("env")).structuredContent?.stdout);
    expect(stdout).toContain("PATH=");
    for (const [name, value] of Object.entries(secrets)) {
      expect(stdout).not.toContain(name);
      expect(stdout).not.toContain(value);
    }
  });

  test("a command that cannot start: why, and what to change; its path for a local client only", async () => {
    const bin = tempDir("skillhub-bin-");
    const broken = write(join(bin, "broken"), "not a program\0\0");
    chmodSync(broken, 0o755);
    for (const remote of [false, true]) {
      const { cmd } = await on(
        { ALLOWED_COMMANDS: "broken" },
        { remote, hub: { exec: { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } } } },
      );
      const result = await cmd("broken");
      expect((result.structuredContent as { error: unknown }).error).toEqual({
        code: "NO_RUNNER",
        message: `Command 'broken' could not start: ${remote ? "<program 'broken'>" : broken} is not a program this system can run (ENOEXEC). Install a working 'broken' on the server's PATH, or take it off ALLOWED_COMMANDS.`,
        command: "broken",
      });
      if (remote) expect(JSON.stringify(result)).not.toContain(bin);
    }
  });

  test("credential-looking variables never reach the command unless pass_env lists them", async () => {
    const { cmd } = await on(
      { ALLOWED_COMMANDS: "env", SKILLHUB_PASS_ENV: "DEPLOY_KEY,SSH_AUTH_SOCK" },
      {
        hub: {
          exec: {
            env: {
              ...process.env,
              ANTHROPIC_API_KEY: "sk-ant-cmd1",
              GITLAB_TOKEN: "glpat-cmd2",
              DEPLOY_KEY: "ok-cmd3",
              // Credentials handed over by reference: the user's SSH agent (named in pass_env), the hub's
              // bearer header for mcp-remote, a program answering password prompts.
              SSH_AUTH_SOCK: "/tmp/ssh-cmd4/agent.1",
              SKILLHUB_AUTHORIZATION: "Bearer cmd5-token",
              GIT_ASKPASS: "/opt/cmd6/askpass.sh",
            },
          },
        },
      },
    );
    const stdout = String((await cmd("env")).structuredContent?.stdout);
    expect(stdout).toContain("DEPLOY_KEY=ok-cmd3");
    expect(stdout).toContain("SSH_AUTH_SOCK=/tmp/ssh-cmd4/agent.1");
    for (const value of ["sk-ant-cmd1", "glpat-cmd2", "cmd5-token", "/opt/cmd6/askpass.sh"])
      expect(stdout).not.toContain(value);
    const { cmd: unnamed } = await on(
      { ALLOWED_COMMANDS: "env" },
      { hub: { exec: { env: { ...process.env, SSH_AUTH_SOCK: "/tmp/ssh-cmd4/agent.1" } } } },
    );
    expect(String((await unnamed("env")).structuredContent?.stdout)).not.toContain("SSH_AUTH_SOCK");
  });

  test("SkillHub's own URLs, *_PAT and *_PASS names and relative module folders never reach the command", async () => {
    const inherited = {
      // A credential in a URL's query or path, which no name says is one.
      ANALYTICS_ENDPOINT: "http://127.0.0.1:9/collect?api_key=cmd7-analytics",
      EMBEDDING_BASE_URL: "http://127.0.0.1:9/v1?key=cmd8-embedding",
      OPENAI_BASE_URL: "http://127.0.0.1:9/hooks/cmd9-openai/v1",
      SKILLS_REPO: "http://127.0.0.1:9/team.git?token=cmd10-repo",
      GH_PAT: "cmd11-pat",
      DOCKER_PASS: "cmd12-pass",
      // Relative: Python runs a site-packages' .pth files below it, glibc loads iconv modules from it.
      PYTHONUSERBASE: "userbase",
      GCONV_PATH: "gconv",
      PYTHONHOME: "/opt/kept-absolute",
    };
    const { cmd } = await on({ ALLOWED_COMMANDS: "env" }, { hub: { exec: { env: { ...process.env, ...inherited } } } });
    const stdout = String((await cmd("env")).structuredContent?.stdout);
    for (const name of Object.keys(inherited).filter((n) => n !== "PYTHONHOME"))
      expect(stdout).not.toContain(`${name}=`);
    for (const value of ["cmd7", "cmd8", "cmd9", "cmd10", "cmd11", "cmd12"]) expect(stdout).not.toContain(value);
    expect(stdout).toContain("PYTHONHOME=/opt/kept-absolute\n");
    // pass_env lets one of SkillHub's URLs through, for a skill that calls the same server.
    const { cmd: passed } = await on(
      { ALLOWED_COMMANDS: "env", SKILLHUB_PASS_ENV: "OPENAI_BASE_URL" },
      { hub: { exec: { env: { ...process.env, ...inherited } } } },
    );
    expect(String((await passed("env")).structuredContent?.stdout)).toContain(
      `OPENAI_BASE_URL=${inherited.OPENAI_BASE_URL}\n`,
    );
  });
});

describe("run_skill_command: library search paths from the server's environment", () => {
  /** The server's PATH without uv, so that `python` is python3 itself; PYTHONPATH as given. */
  const pythonEnv = (pythonPath: string) => ({
    ...process.env,
    PATH: (process.env.PATH ?? "")
      .split(":")
      .filter((p) => !Bun.which("uv", { PATH: p }))
      .join(":"),
    PYTHONPATH: pythonPath,
  });

  /** A skill whose script (in scripts/) imports json, and a json.py planted in the skill's folder (the command's cwd). */
  async function planted(pythonPath: string, passEnv?: string) {
    const session = await open(
      { SKILLHUB_ENABLE_COMMANDS: "1", ...(passEnv ? { SKILLHUB_PASS_ENV: passEnv } : {}) },
      { hub: { exec: { env: pythonEnv(pythonPath) } } },
    );
    write(join(session.dir, "pdf", "json.py"), "print('planted module ran')\n");
    write(
      join(session.dir, "pdf", "scripts", "probe.py"),
      "import json, os\nprint(json.__file__)\nprint('PYTHONPATH=' + repr(os.environ.get('PYTHONPATH')))\n",
    );
    return (await session.cmd("python", ["scripts/probe.py"])).structuredContent as {
      stdout: string;
      exit_code: number;
    };
  }

  test("PYTHONPATH=':' inherited: the working folder's json.py is not imported; absolute entries are kept", async () => {
    const run = await planted(":");
    expect(run.exit_code).toBe(0);
    expect(run.stdout).not.toContain("planted module ran");
    expect(run.stdout).not.toContain(join("pdf", "json.py"));
    expect(run.stdout).toContain("PYTHONPATH=None");
    const lib = tempDir("skillhub-pylib-");
    const kept = await planted(`:${lib}:lib`);
    expect(kept.stdout).not.toContain("planted module ran");
    expect(kept.stdout).toContain(`PYTHONPATH='${lib}'`);
  });

  test("pass_env naming PYTHONPATH keeps it whole", async () => {
    const run = await planted(":", "PYTHONPATH");
    expect(run.stdout).toContain("planted module ran");
    expect(run.stdout).toContain("PYTHONPATH=':'");
  });
});

describe("run_skill_command: a bounded number of runs at once", () => {
  test("past the server's limit a call is refused at once (TOO_MANY_RUNS), and a finished run frees its place", async () => {
    const { cmd, dir } = await open(
      { SKILLHUB_ENABLE_COMMANDS: "1", ALLOWED_COMMANDS: "bash" },
      { hub: { exec: { maxRunning: 2 } } },
    );
    // Each run says it started, then waits for the test's word: no clock decides who is running when.
    write(join(dir, "pdf", "wait.sh"), 'touch "started-$$"\nwhile [ ! -e go ]; do sleep 0.05; done\necho done\n');
    const started = () => readdirSync(join(dir, "pdf")).filter((n) => n.startsWith("started-")).length;
    const running = [cmd("bash", ["wait.sh"]), cmd("bash", ["wait.sh"])];
    await eventually(() => started() === 2);
    let third: Awaited<ReturnType<typeof cmd>> | undefined;
    void cmd("bash", ["wait.sh"]).then((r) => (third = r));
    // Without the limit the third run starts and waits with the others.
    await eventually(() => third !== undefined || started() > 2);
    expect(started()).toBe(2);
    expect(third?.isError).toBe(true);
    expect(third && error(third)).toMatchObject({ code: "TOO_MANY_RUNS", running: 2 });
    expect(third && error(third).message).toBe(
      "2 scripts and commands are running on this server, the most it runs at once; try again when one has finished.",
    );
    writeFileSync(join(dir, "pdf", "go"), "");
    for (const result of await Promise.all(running))
      expect(result.structuredContent).toMatchObject({ stdout: "done\n" });
    expect((await cmd("bash", ["wait.sh"])).structuredContent).toMatchObject({ stdout: "done\n", exit_code: 0 });
  });
});

describe("run_skill_command: the project's own skills", () => {
  /** A project skill whose `json/` package would be imported first by `python -m json.tool` run in its folder. */
  function projectWithPlantedJson(): { project: string; marker: string } {
    const project = tempDir("skillhub-project-");
    const marker = join(tempDir("skillhub-marker-"), "ran");
    const skill = join(project, ".agents", "skills", "demo");
    writeSkill(join(project, ".agents", "skills"), "demo", { description: "A project's demo skill" });
    write(join(skill, "json", "__init__.py"), `open(${JSON.stringify(marker)}, "w").write("project code ran")\n`);
    write(join(skill, "data.json"), '{"a": 1}\n');
    return { project, marker };
  }

  test("refused unless scripts.allow_project, as run_script refuses a project's scripts: the project's code does not run", async () => {
    const { project, marker } = projectWithPlantedJson();
    // Without uv on PATH, `python` is python3 itself.
    const PATH = (process.env.PATH ?? "")
      .split(":")
      .filter((p) => !Bun.which("uv", { PATH: p }))
      .join(":");
    const session = await connect({
      flags: { project },
      env: { SKILLHUB_ENABLE_COMMANDS: "1" },
      hub: { exec: { env: { ...process.env, PATH } } },
    });
    closers.push(session.close);
    const call = () =>
      session.call("run_skill_command", {
        skill_name: "demo",
        command: "python",
        args: ["-m", "json.tool", "data.json"],
      });
    const refused = await call();
    expect(refused.isError).toBe(true);
    expect(error(refused)).toMatchObject({ code: "COMMANDS_DISABLED", location: "project" });
    expect(error(refused).message).toBe(
      "Skill 'demo' is in this project's own skills (its folders, a Claude Code plugin installed for it, or a repository its skillhub.yaml adds), and commands in its folder do not run unless scripts.allow_project is true in ~/.skillhub/config.yaml. Read its files with read_skill_file and run them yourself if the user agrees.",
    );
    expect(await Bun.file(marker).exists()).toBe(false);
    // The user's word lets it run, as it lets the project's server scripts run.
    session.hub.config.scripts.allow_project = true;
    const ran = await call();
    expect(ran.isError).toBeFalsy();
    expect(await Bun.file(marker).text()).toBe("project code ran");
  });
});

describe("run_skill_command runs where its check looked", () => {
  test("a resource folder's link swapped for one to elsewhere between the check and the start: the checked folder", async () => {
    const skills = tempDir("skillhub-swap-");
    writeNode(skills, "ops.md", { keywords: ["ops"] });
    write(join(skills, "ops-files", "approved.txt"), "approved\n");
    symlinkSync("ops-files", join(skills, "ops"));
    const decoy = tempDir("skillhub-decoy-");
    write(join(decoy, "DECOY.txt"), "decoy\n");
    const cwds: string[] = [];
    // The race made certain: the link is re-pointed as the process is started, after every check.
    const spawn: SpawnFn = (argv, options) => {
      cwds.push(options.cwd);
      rmSync(join(skills, "ops"));
      symlinkSync(decoy, join(skills, "ops"));
      return defaultSpawn(argv, options);
    };
    const session = await connect({
      flags: { "skills-dir": [skills] },
      env: { SKILLHUB_ENABLE_COMMANDS: "1" },
      hub: { exec: { spawn } },
    });
    closers.push(session.close);
    const listed = await session.call("run_skill_command", { skill_name: "ops", command: "ls" });
    expect(listed.structuredContent).toMatchObject({ stdout: "approved.txt\n", exit_code: 0 });
    expect(cwds).toEqual([realpathSync(join(skills, "ops-files"))]);
  });
});
