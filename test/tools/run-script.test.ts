import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { defaultSpawn, type SpawnFn } from "../../src/exec/process.ts";
import { emptyBunConfig } from "../../src/exec/runners.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { type ConnectOptions, connect, eventually, textOf } from "../helpers/hub.ts";
import { heldTimeout, survivors } from "../helpers/process.ts";
import { writeScriptTree } from "../helpers/scripts.ts";
import { writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

async function open(dir = writeScriptTree(tempDir()), options: ConnectOptions = {}) {
  const session = await connect({
    ...options,
    flags: { "skills-dir": [dir] },
    env: { SKILLHUB_TOOLS: "all", ...options.env },
  });
  closers.push(session.close);
  const events: { type: string; data: Record<string, unknown> }[] = [];
  session.hub.track = (type, data) => {
    events.push({ type, data });
    return "queued";
  };
  await session.client.listTools();
  const run = (file: string, args: Record<string, string> = {}, more: Record<string, unknown> = {}) =>
    session.call("run_script", { skill_path: "tools/echo", file, args, ...more });
  return { ...session, dir, events, run };
}

type Err = { error: { code: string; message: string; [k: string]: unknown } };
const error = (r: { structuredContent?: unknown }) => (r.structuredContent as Err).error;

describe("run_script: the validation cascade, in its order", () => {
  test("each refusal has its code, and an earlier check wins over a later one", async () => {
    const { call, run, hub } = await open();
    hub.config.scripts.enabled = false;
    expect(error(await call("run_script", { skill_path: "nope", file: "../x", args: {} })).code).toBe(
      "SCRIPTS_DISABLED",
    );
    hub.config.scripts.enabled = true;
    expect(error(await call("run_script", { skill_path: "nope", file: "../x", args: {} })).code).toBe(
      "SKILL_NOT_FOUND",
    );
    expect(error(await run("../x.sh")).code).toBe("PATH_OUTSIDE_SKILL");
    expect(error(await run("/etc/passwd")).code).toBe("PATH_OUTSIDE_SKILL");
    expect(error(await run("scripts/undeclared.sh")).code).toBe("SCRIPT_NOT_DECLARED");
    expect(error(await run("scripts/local.sh")).code).toBe("SCRIPT_NOT_SERVER");
    expect(error(await run("scripts/tool.rb")).code).toBe("MISSING_ARGS");
    expect(error(await run("scripts/tool.rb", { name: "x" })).code).toBe("EXTENSION_NOT_ALLOWED");
    expect(error(await run("scripts/gone.rb", { name: "x" })).code).toBe("EXTENSION_NOT_ALLOWED");
    expect(error(await run("scripts/gone.sh", { name: "x" })).code).toBe("FILE_NOT_FOUND");
    hub.config.scripts.allowed_extensions.push(".lua");
    expect(error(await run("scripts/gone.lua")).code).toBe("FILE_NOT_FOUND");
    expect(error(await run("scripts/run.lua")).code).toBe("NO_RUNNER");
  });

  test("the refusals' texts say what to do instead", async () => {
    const { run, hub } = await open();
    expect(error(await run("scripts/local.sh"))).toEqual({
      code: "SCRIPT_NOT_SERVER",
      message:
        "Script 'scripts/local.sh' is declared with execution: 'claude', so run_script does not run it. Fetch it with get_asset, with any file it reads, and run it yourself from the skill's folder, each argument as an environment variable: SKILL_ARG_NAME='<name>' SKILL_ARG_GREETING=hello bash scripts/local.sh. Optional: SKILL_ARG_GREETING (How to greet), set to its default in the line.",
      skill_path: "tools/echo",
      file: "scripts/local.sh",
      execution: "claude",
    });
    // A client on another machine that gets no download link is told why, and how to save the files instead.
    const remote = await open(undefined, { remote: true });
    expect(error(await remote.run("scripts/local.sh")).message).toBe(
      "Script 'scripts/local.sh' is declared with execution: 'claude', so run_script does not run it. Run it yourself, each argument as an environment variable: SKILL_ARG_NAME='<name>' SKILL_ARG_GREETING=hello bash scripts/local.sh. Optional: SKILL_ARG_GREETING (How to greet), set to its default in the line. No download command is offered: the server cannot tell the address you reach it at, which a download link names. To run a script, save it and each file it uses into a new local folder under its relative path, fetching each with resources/read of its URI, skill://tools/echo/<path> (a client such as Claude Code saves a binary resource to disk without its bytes passing through your context), then run it there; read_skill_file, which returns a file in parts through your context, is for text you must read yourself.",
    );
    const missing = await run("scripts/args.sh", { greeting: "hi" });
    expect(missing.isError).toBe(true);
    expect(error(missing)).toEqual({
      code: "MISSING_ARGS",
      message: "Script 'scripts/args.sh' needs this argument: name (Who to greet). Pass it by name in args.",
      skill_path: "tools/echo",
      file: "scripts/args.sh",
      missing: [{ name: "name", description: "Who to greet" }],
    });
    expect(error(await run("scripts/tool.rb", { name: "x" })).message).toBe(
      "Script 'scripts/tool.rb' has the extension '.rb', which this server does not run. Allowed extensions: .sh, .ts, .js, .py (scripts.allowed_extensions).",
    );
    const undeclared = error(await run("scripts/undeclared.sh"));
    expect(undeclared.message).toStartWith(
      "Script 'scripts/undeclared.sh' not found for skill 'tools/echo'. Declared scripts: scripts/args.js (execution: server),",
    );
    expect(undeclared.message).toContain("scripts/whoami.sh (execution: server)");
    expect(undeclared.message).toEndWith("Only scripts declared in the skill's frontmatter can run.");
    hub.config.scripts.enabled = false;
    expect(JSON.parse(textOf(await run("scripts/args.sh")))).toEqual({
      error: {
        code: "SCRIPTS_DISABLED",
        message:
          "Script execution is disabled on this server (scripts.enabled: false). Fetch the script with get_asset and run it yourself if appropriate.",
      },
    });
    hub.config.scripts.enabled = true;
    hub.config.scripts.allowed_extensions.push(".lua");
    expect(error(await run("scripts/run.lua")).message).toBe(
      "No runner is configured for '.lua' scripts (scripts.runners). Fetch the script with get_asset and run it yourself.",
    );
    hub.config.scripts.runners[".lua"] = "lua-not-installed-here";
    expect(error(await run("scripts/run.lua")).message).toBe(
      "The runner 'lua-not-installed-here' for '.lua' scripts is not installed on this machine ('lua-not-installed-here' is not on PATH). Give '.lua' a runner that works in scripts.runners, or fetch the script with get_asset and run it yourself.",
    );
  });

  test("undeclared arguments are refused, listing the accepted ones; an Agent Skill declares no scripts; a disabled skill is refused", async () => {
    const dir = writeScriptTree(tempDir());
    writeSkill(dir, "pdf");
    const { run, call } = await open(dir);
    expect(error(await run("scripts/args.sh", { name: "a", nam: "typo" }))).toMatchObject({
      code: "INVALID_ARGUMENT",
      message: "Script 'scripts/args.sh' does not declare 'nam'. It accepts: name, greeting.",
    });
    expect(error(await call("run_script", { skill_path: "pdf", file: "scripts/x.sh", args: {} }))).toMatchObject({
      code: "SCRIPT_NOT_DECLARED",
      message:
        "Script 'scripts/x.sh' not found for skill 'pdf'. It is an Agent Skill, whose scripts run_script does not run: fetch the script with read_skill_file and run it yourself. Only scripts declared in the skill's frontmatter can run.",
      available: [],
    });
    const filtered = await open(dir, { env: { SKILLHUB_ENABLED_SKILLS: "pdf" } });
    expect(error(await filtered.run("scripts/args.sh", { name: "a" })).code).toBe("SKILL_DISABLED");
  });
  test("an argument named __proto__, which zod drops from a record, is refused rather than left out; others arrive", async () => {
    const { run, events } = await open();
    // JSON text, as a client sends it: an object literal would set the prototype instead of a key.
    const refused = await run("scripts/args.sh", JSON.parse('{"name": "Ada", "__proto__": "x"}'));
    expect(refused.isError).toBe(true);
    expect(error(refused)).toEqual({
      code: "INVALID_ARGUMENT",
      message:
        "Invalid arguments for run_script: args.__proto__: a key named '__proto__' cannot be passed: leave it out. Expected fields: skill_path, file, args, cwd.",
      issues: ["args.__proto__: a key named '__proto__' cannot be passed: leave it out"],
    });
    expect(events).toEqual([]);
    // constructor and prototype stay keys of their own, refused as any undeclared name is.
    for (const name of ["constructor", "prototype"])
      expect(error(await run("scripts/args.sh", { name: "Ada", [name]: "x" }))).toMatchObject({
        code: "INVALID_ARGUMENT",
        message: `Script 'scripts/args.sh' does not declare '${name}'. It accepts: name, greeting.`,
      });
    const ran = await run("scripts/args.sh", JSON.parse('{"name": "Ada"}'));
    expect((ran.structuredContent as { stdout: string }).stdout).toStartWith("sh name=Ada greeting=hello");
  });

  test("a value longer than exec takes is refused as an argument, not reported as a runner that cannot start", async () => {
    const { run, events } = await open();
    // SKILL_ARG_NAME= and 131,057 bytes: 131,072 with the NUL exec counts; the message gives the value's own sizes.
    expect(error(await run("scripts/args.sh", { name: "x".repeat(131_057) }))).toMatchObject({
      code: "INVALID_ARGUMENT",
      message:
        "Argument 'name' is 131057 bytes; a script takes at most 131056 bytes in it. Give a shorter value (a file's path instead of its text, if the script takes one).",
    });
    expect(events).toEqual([]);
    const ran = await run("scripts/args.sh", { name: "x".repeat(131_056) });
    expect((ran.structuredContent as { success: boolean }).success).toBe(true);
  });

  test("a declared script that is a symlink leading out of the resource folder does not run", async () => {
    const dir = writeScriptTree(tempDir());
    const outside = write(join(tempDir("skillhub-outside-"), "evil.sh"), "echo evil\n");
    symlinkSync(outside, join(dir, "tools/echo/scripts/gone.sh"));
    const { run } = await open(dir);
    expect(error(await run("scripts/gone.sh", { name: "x" }))).toMatchObject({
      code: "PATH_OUTSIDE_SKILL",
      message: "Script 'scripts/gone.sh' resolves outside the resource folder of 'tools/echo' and does not run.",
    });
  });
});

describe("run_script: the server's limit of runs at once", () => {
  test("a call past it is refused at once with TOO_MANY_RUNS, nothing started", async () => {
    const { run } = await open(undefined, { hub: { exec: { maxRunning: 0 } } });
    const refused = await run("scripts/args.sh", { name: "Ada" });
    expect(refused.isError).toBe(true);
    expect(error(refused)).toMatchObject({ code: "TOO_MANY_RUNS", running: 0 });
  });
});

describe("run_script: runners and arguments", () => {
  test.each([
    ["scripts/args.sh", "sh"],
    ["scripts/args.py", "py"],
    ["scripts/args.js", "js"],
    ["scripts/args.ts", "ts"],
  ])("%s receives its arguments as SKILL_ARG_*, defaults applied", async (file, tag) => {
    const { run, events } = await open();
    const result = await run(file, { name: "Ada" });
    const content = result.structuredContent as Record<string, unknown>;
    expect(content).toMatchObject({ success: true, exit_code: 0, stderr: "", script: file });
    expect(Object.keys(content).sort()).toEqual(["duration_ms", "exit_code", "script", "stderr", "stdout", "success"]);
    expect(String(content.stdout)).toStartWith(`${tag} name=Ada greeting=hello`);
    if (tag === "ts") expect(String(content.stdout)).toContain("runtime=bun");
    expect(typeof content.duration_ms).toBe("number");
    expect(events).toEqual([
      {
        type: "script_executed",
        data: {
          skill_path: "tools/echo",
          file,
          execution_mode: "server",
          success: true,
          exit_code: 0,
          duration_ms: content.duration_ms,
          args_provided: ["name"],
        },
      },
    ]);
  });

  test("a bunfig.toml or .env in the working folder neither preloads code nor adds variables to a .ts script", async () => {
    const project = tempDir("skillhub-project-");
    write(join(project, "bunfig.toml"), 'preload = ["./planted.ts"]\n');
    write(join(project, "planted.ts"), 'console.log("planted code ran");\n');
    write(join(project, ".env"), "SKILL_ARG_NAME=planted\n");
    const { run } = await open(undefined, { flags: {}, cwd: project, env: { SKILLHUB_PROJECT_DIR: project } });
    const stdout = String((await run("scripts/args.ts", { name: "Ada" })).structuredContent?.stdout);
    expect(stdout).toStartWith("ts name=Ada greeting=hello");
    expect(stdout).not.toContain("planted");
  });

  test("a .ts script's missing package is not fetched from the registry at run time", async () => {
    const requests: string[] = [];
    const registry = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (request) => {
        requests.push(new URL(request.url).pathname);
        return new Response("not found", { status: 404 });
      },
    });
    closers.push(async () => void registry.stop(true));
    const url = `http://127.0.0.1:${registry.port}/`;
    const dir = writeScriptTree(tempDir());
    write(
      join(dir, "tools/echo/scripts/args.ts"),
      'import pad from "skillhub-absent-package";\nconsole.log(pad("x"));\n',
    );
    const env = { ...process.env, NPM_CONFIG_REGISTRY: url, BUN_CONFIG_REGISTRY: url };
    const { run } = await open(dir, { hub: { exec: { env } } });
    const content = (await run("scripts/args.ts", { name: "Ada" })).structuredContent as Record<string, unknown>;
    expect(content).toMatchObject({ success: false });
    expect(String(content.stderr)).toContain("skillhub-absent-package");
    expect(requests).toEqual([]);
  });

  test("where there is no /dev/null (Windows), an empty file in SkillHub's home keeps the folder's bunfig.toml unread", async () => {
    const project = tempDir("skillhub-project-");
    write(join(project, "bunfig.toml"), 'preload = ["./planted.ts"]\n');
    write(join(project, "planted.ts"), 'console.log("planted code ran");\n');
    const home = tempDir("skillhub-home-");
    // Something wrote into the empty file: it is emptied before it is used.
    write(join(home, "empty-bunfig.toml"), 'preload = ["../planted.ts"]\n');
    const { run, hub } = await open(undefined, { flags: {}, cwd: project, env: { SKILLHUB_PROJECT_DIR: project } });
    hub.exec.bunConfig = () => emptyBunConfig(home, "win32");
    const stdout = String((await run("scripts/args.ts", { name: "Ada" })).structuredContent?.stdout);
    expect(stdout).toStartWith("ts name=Ada greeting=hello");
    expect(stdout).not.toContain("planted");
    expect(readFileSync(join(home, "empty-bunfig.toml"), "utf8")).toBe("");
    expect(emptyBunConfig(home, "linux")).toBe("/dev/null");
    // A home that cannot be written: the call says so, and nothing runs.
    const file = write(join(tempDir("skillhub-home-"), "not-a-folder"), "x");
    hub.exec.bunConfig = () => emptyBunConfig(join(file, "home"), "win32");
    expect(error(await run("scripts/args.ts", { name: "Ada" }))).toMatchObject({
      code: "NO_RUNNER",
      message: expect.stringContaining("its empty config file cannot be written in SkillHub's home (ENOTDIR"),
    });
  });

  test("a runner that cannot start: which runner, why and which setting; its path for a local client only", async () => {
    // An executable this system cannot run (no #! line, not a program): starting it fails with ENOEXEC.
    const bin = tempDir("skillhub-runner-");
    const broken = write(join(bin, "broken"), "not a program\0\0");
    chmodSync(broken, 0o755);
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
    const advice =
      "Give '.sh' a runner that works in scripts.runners, or fetch the script with get_asset and run it yourself.";
    for (const remote of [false, true]) {
      const { run, hub } = await open(undefined, { remote, hub: { exec: { env } } });
      const shown = remote ? "<program 'broken'>" : broken;
      // A remote client is told how to run the script itself: here, with no link to give, how to save its files.
      const told = (message: string, expected: string) =>
        remote
          ? expect(message).toStartWith(`${expected} No download command is offered: `)
          : expect(message).toBe(expected);
      // Found on PATH, then configured by its path.
      for (const [configured, named] of [
        ["broken --quiet", "broken --quiet"],
        [`${broken} --quiet`, `${shown} --quiet`],
      ]) {
        hub.config.scripts.runners[".sh"] = configured as string;
        const result = await run("scripts/args.sh", { name: "a" });
        const { message, ...rest } = error(result);
        told(
          message,
          `The runner '${named}' for '.sh' scripts could not start: ${shown} is not a program this system can run (ENOEXEC). ${advice}`,
        );
        expect(rest).toEqual({
          code: "NO_RUNNER",
          skill_path: "tools/echo",
          file: "scripts/args.sh",
          extension: ".sh",
        });
        if (remote) expect(JSON.stringify(result)).not.toContain(bin);
      }
      // Configured by a path that does not exist.
      hub.config.scripts.runners[".sh"] = join(bin, "gone");
      const missing = await run("scripts/args.sh", { name: "a" });
      told(
        error(missing).message,
        `The runner '${remote ? "<program 'gone'>" : join(bin, "gone")}' for '.sh' scripts is not installed on this machine (no executable file there). ${advice}`,
      );
      if (remote) expect(JSON.stringify(missing)).not.toContain(bin);
    }
  });

  test("arguments are data, never code: quotes and $( ) reach the script verbatim", async () => {
    const { run } = await open();
    const result = await run("scripts/args.sh", { name: "$(touch /tmp/pwned); `id` 'x' \"y\"", greeting: "a;b" });
    expect((result.structuredContent as { stdout: string }).stdout).toStartWith(
      "sh name=$(touch /tmp/pwned); `id` 'x' \"y\" greeting=a;b",
    );
  });

  test("an inherited script resolves up the chain and runs from its owner's folder", async () => {
    const { run } = await open();
    expect((await run("scripts/whoami.sh")).structuredContent).toMatchObject({
      success: true,
      stdout: "root script in _root\n",
      script: "scripts/whoami.sh",
    });
  });

  test("cwd: default the project root (else the server's folder); relative to it; must be an existing folder", async () => {
    const project = tempDir("skillhub-project-");
    mkdirSync(join(project, "sub"));
    const { run } = await open(undefined, { flags: {}, cwd: project, env: { SKILLHUB_PROJECT_DIR: project } });
    expect(String((await run("scripts/args.sh", { name: "a" })).structuredContent?.stdout)).toContain(
      `cwd=${project}\n`,
    );
    expect(String((await run("scripts/args.sh", { name: "a" }, { cwd: "sub" })).structuredContent?.stdout)).toContain(
      `cwd=${join(project, "sub")}\n`,
    );
    const bad = await run("scripts/args.sh", { name: "a" }, { cwd: "missing" });
    expect(error(bad)).toMatchObject({
      code: "INVALID_ARGUMENT",
      message: `cwd 'missing' (${join(project, "missing")}) does not exist. Give an existing folder as cwd, or leave it out to run in the project root.`,
    });
  });

  test("cwd from a client on another machine: a folder of the server's project, given relative to it", async () => {
    const project = tempDir("skillhub-project-");
    mkdirSync(join(project, "sub"));
    const outside = tempDir("skillhub-elsewhere-");
    symlinkSync(outside, join(project, "out"));
    const { run } = await open(undefined, {
      flags: {},
      cwd: project,
      env: { SKILLHUB_PROJECT_DIR: project },
      remote: true,
    });
    expect(String((await run("scripts/args.sh", { name: "a" }, { cwd: "sub" })).structuredContent?.stdout)).toContain(
      "cwd=<project>/sub\n",
    );
    // Through a link that leads out, one answer whether the folder there exists, is a file or is missing.
    mkdirSync(join(outside, "secret-dir"));
    write(join(outside, "secret-file"), "x");
    const refusals = [outside, "/etc", "/no/such/folder", "../..", "sub/../../x", "out", "C:\\Windows"];
    for (const cwd of [...refusals, "out/secret-dir", "out/secret-file", "out/no-such"]) {
      const refused = await run("scripts/args.sh", { name: "a" }, { cwd });
      // A path of the server is not told back to a client on another machine.
      const quoted = cwd === outside ? "<server path>" : cwd;
      expect(error(refused), cwd).toMatchObject({
        code: "INVALID_ARGUMENT",
        message: `cwd '${quoted}' is not a folder of the server's project: a client on another machine gives one relative to the project root. Give an existing folder as cwd, or leave it out to run in the project root.`,
      });
    }
  });

  test("cwd from a client on another machine, on a server with no project (started in /, --project / or a home): refused", async () => {
    const home = tempDir("skillhub-home-");
    mkdirSync(join(home, "etc"));
    const servers: ConnectOptions[] = [
      { flags: {}, cwd: "/" },
      { flags: {}, cwd: "/", env: { SKILLHUB_PROJECT_DIR: "/" } },
      // The user's home is known to the server whatever HOME its scripts get.
      { flags: {}, home, cwd: home, env: { SKILLHUB_PROJECT_DIR: home, HOME: "" } },
    ];
    for (const options of servers) {
      const { run } = await open(undefined, { ...options, remote: true });
      expect(error(await run("scripts/args.sh", { name: "a" }, { cwd: "etc" }))).toMatchObject({
        code: "INVALID_ARGUMENT",
        message: expect.stringContaining("cwd 'etc' cannot be used: this server has no project folder"),
      });
    }
  });

  test("a cwd longer than any folder's path is refused at once", async () => {
    const project = tempDir("skillhub-project-");
    const { run } = await open(undefined, {
      flags: {},
      cwd: project,
      env: { SKILLHUB_PROJECT_DIR: project },
      remote: true,
    });
    expect(error(await run("scripts/args.sh", { name: "a" }, { cwd: "a/".repeat(100_000) }))).toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringContaining("cwd is longer than 4096 characters"),
    });
  });

  test("a failing script is a result, not an error: success false with its exit code and stderr", async () => {
    const dir = writeScriptTree(tempDir());
    writeNode(dir, "fail.md", {
      keywords: ["fail"],
      extra: "scripts:\n  - file: scripts/fail.sh\n    description: fails\n    execution: server",
    });
    write(join(dir, "fail/scripts/fail.sh"), "echo \"Error: Missing required field 'clientId'\" >&2\nexit 1\n");
    const { call } = await open(dir);
    const result = await call("run_script", { skill_path: "fail", file: "scripts/fail.sh", args: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      success: false,
      exit_code: 1,
      stdout: "",
      stderr: "Error: Missing required field 'clientId'\n",
      script: "scripts/fail.sh",
    });
  });

  test("the server's secrets are not in the script's environment", async () => {
    const secrets = {
      GITHUB_TOKEN: "ghp_secret1",
      SKILLHUB_HTTP_TOKEN: "http-secret2",
      OPENAI_API_KEY: "sk-secret3",
      GEMINI_API_KEY: "gem-secret4",
      EMBEDDING_API_KEY: "emb-secret5",
      TEAM_DB_PASSWORD: "db-secret6",
    };
    const { run } = await open(undefined, {
      env: { SKILLHUB_SECRETS: "TEAM_DB_PASSWORD" },
      hub: { exec: { env: { ...process.env, ...secrets, KEEP_ME: "visible" } } },
    });
    const stdout = String((await run("scripts/env.sh")).structuredContent?.stdout);
    expect(stdout).toContain("KEEP_ME=visible");
    for (const [name, value] of Object.entries(secrets)) {
      expect(stdout).not.toContain(name);
      expect(stdout).not.toContain(value);
    }
  });
});

describe("run_script: credential-looking variables", () => {
  test("*_KEY, *_TOKEN, *_SECRET, *_PASSWORD and AWS_SECRET* never reach the script unless pass_env lists them", async () => {
    const credentials = {
      ANTHROPIC_API_KEY: "sk-ant-secret1",
      AWS_SECRET_ACCESS_KEY: "aws-secret2",
      GITLAB_TOKEN: "glpat-secret3",
      SENTRY_SECRET: "sentry-secret4",
      smtp_password: "smtp-secret5",
      AWS_SECRETS_FILE: "/aws-secret6",
      NPM_TOKEN: "npm-allowed7",
    };
    const { run } = await open(undefined, {
      env: { SKILLHUB_PASS_ENV: "npm_token" },
      hub: { exec: { env: { ...process.env, ...credentials, KEYBOARD: "visible", TOKENS_DIR: "/t" } } },
    });
    const stdout = String((await run("scripts/env.sh")).structuredContent?.stdout);
    expect(stdout).toContain("KEYBOARD=visible");
    expect(stdout).toContain("TOKENS_DIR=/t");
    expect(stdout).toContain("NPM_TOKEN=npm-allowed7");
    for (const [name, value] of Object.entries(credentials)) {
      if (name === "NPM_TOKEN") continue;
      expect(stdout).not.toContain(`${name}=`);
      expect(stdout).not.toContain(value);
    }
  });
});

describe("run_script: credentials inside values", () => {
  test("a URL's ?key= (Google APIs') arrives as ?key=***, its name and the rest of the URL kept; key= elsewhere is kept", async () => {
    const { run } = await open(undefined, {
      hub: {
        exec: {
          env: {
            ...process.env,
            MAPS_URL: "https://maps.googleapis.com/maps/api/geocode/json?key=AIzaSyDecoy0056&alt=json",
            SORT_OPTIONS: "sort=key=name",
          },
        },
      },
    });
    const stdout = String((await run("scripts/env.sh")).structuredContent?.stdout);
    expect(stdout).toContain("MAPS_URL=https://maps.googleapis.com/maps/api/geocode/json?key=***&alt=json\n");
    expect(stdout).not.toContain("AIzaSyDecoy0056");
    expect(stdout).toContain("SORT_OPTIONS=sort=key=name\n");
  });
});

describe("run_script: interpreters' start-up hooks", () => {
  test("BASH_ENV, BUN_OPTIONS, NODE_OPTIONS and the like in the server's environment reach no script unless pass_env lists them", async () => {
    const dir = writeScriptTree(tempDir());
    const scripts = join(dir, "tools/echo/scripts");
    // Relative, so each would run a file of the working folder (the script's own here) before the script.
    write(join(scripts, "hook.sh"), "echo HOOK-SOURCED\n");
    write(join(scripts, "hook.js"), "console.log('HOOK-PRELOADED');\n");
    const hooks = {
      BASH_ENV: "./hook.sh",
      ENV: "./hook.sh",
      BUN_OPTIONS: "--preload ./hook.js",
      NODE_OPTIONS: "--require ./hook.js",
      PERL5OPT: "-Mstrict",
      PYTHONSTARTUP: "./hook.py",
      LD_PRELOAD: "/nonexistent/hook.so",
    };
    const { run } = await open(dir, { hub: { exec: { env: { ...process.env, ...hooks } } } });
    const cwd = { cwd: scripts };
    const env = String((await run("scripts/env.sh", {}, cwd)).structuredContent?.stdout);
    for (const name of Object.keys(hooks)) expect(env).not.toContain(`\n${name}=`);
    expect(env).not.toContain("HOOK-SOURCED");
    const sh = await run("scripts/args.sh", { name: "n" }, cwd);
    expect(sh.structuredContent?.stdout).toStartWith("sh name=n greeting=hello");
    const ts = await run("scripts/args.ts", { name: "n" }, cwd);
    expect(ts.structuredContent?.stdout).toStartWith("ts name=n greeting=hello runtime=bun");
    const passed = await open(dir, {
      env: { SKILLHUB_PASS_ENV: "bash_env" },
      hub: { exec: { env: { ...process.env, ...hooks } } },
    });
    expect((await passed.run("scripts/args.sh", { name: "n" }, cwd)).structuredContent?.stdout).toStartWith(
      "HOOK-SOURCED\nsh name=n",
    );
  });
});

describe("run_script: PATH", () => {
  test("an empty or relative PATH entry reaches no script: a command planted in the working folder is not run", async () => {
    const dir = tempDir();
    writeNode(dir, "_root.md", { keywords: ["root"] });
    writeNode(dir, "calls.md", { keywords: ["calls"], extra: "scripts:\n  - file: call.sh\n    execution: server" });
    write(join(dir, "calls/call.sh"), 'planted-tool\necho "rc=$? PATH=$PATH"\n');
    const project = tempDir();
    write(join(project, "planted-tool"), "#!/bin/sh\necho PLANTED\n");
    chmodSync(join(project, "planted-tool"), 0o755);
    const path = (process.env.PATH ?? "/usr/bin:/bin")
      .split(":")
      .filter((entry) => entry.startsWith("/"))
      .join(":");
    const { call } = await open(dir, { hub: { exec: { env: { ...process.env, PATH: `.:${path}::bin:` } } } });
    const result = await call("run_script", { skill_path: "calls", file: "call.sh", cwd: project });
    expect(result.structuredContent?.stdout).toBe(`rc=127 PATH=${path}\n`);
  });
});

describe("run_script: process control", () => {
  test("timeout: the script and its sleeping grandchild are gone; partial output and the documented timeout text; exit code 137", async () => {
    const timeout = heldTimeout();
    const { run, hub, events, dir } = await open(undefined, { hub: { exec: { graceMs: 1000, ...timeout.options } } });
    hub.config.scripts.timeout_seconds = 1;
    const running = run("scripts/slow.sh");
    // The timeout fires once the script has printed what the result must keep, however slow the machine.
    await eventually(() => existsSync(join(dir, "tools", "echo", "scripts", "slow.ready")));
    expect(timeout.ms).toBe(1000);
    timeout.fire();
    const result = await running;
    const content = result.structuredContent as {
      stdout: string;
      stderr: string;
      exit_code: number;
      success: boolean;
      duration_ms: number;
    };
    expect(content).toMatchObject({
      success: false,
      exit_code: 137,
      stderr: "partial-err\n[skills-mcp] Script killed: timeout exceeded.",
      script: "scripts/slow.sh",
    });
    const pids = [...content.stdout.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]));
    expect(pids).toHaveLength(2);
    expect(await survivors(pids)).toEqual([]);
    expect(content.duration_ms).toBeGreaterThanOrEqual(0);
    expect(events[0]?.data).toMatchObject({ success: false, exit_code: 137 });
  });

  test("10 MB of output: capped at max_output_bytes while streaming, with a note on stderr", async () => {
    const { run, hub } = await open();
    hub.config.scripts.max_output_bytes = 65_536;
    const content = (await run("scripts/big.sh")).structuredContent as {
      stdout: string;
      stderr: string;
      success: boolean;
    };
    expect(content.success).toBe(true);
    expect(content.stdout).toBe("x".repeat(65_536));
    expect(content.stderr).toBe("[skills-mcp] stdout truncated at 65536 bytes (scripts.max_output_bytes).");
  });

  test("server memory stays flat: 100 MB streamed through it are never held (live memory far below the output)", async () => {
    const { run, hub } = await open();
    hub.config.scripts.max_output_bytes = 65_536;
    await run("scripts/big.sh");
    // Live memory, not RSS: each sample collects garbage first, so what remains is what the server holds.
    // RSS would measure when the GC last ran (later on a loaded machine), not what is kept.
    const live = () => {
      Bun.gc(true);
      const m = process.memoryUsage();
      return m.heapUsed + m.external;
    };
    const before = live();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, live());
    }, 20);
    const result = await run("scripts/big.sh", { mb: "100" });
    clearInterval(sampler);
    peak = Math.max(peak, live());
    expect((result.structuredContent as { stdout: string }).stdout.length).toBe(65_536);
    // Holding the output would keep 100 MB alive (twice, as a string); streaming keeps the 64 KiB cap.
    expect(peak - before).toBeLessThan(40 * 1024 * 1024);
  });

  test("a server that closes mid-script ends the script's whole group", async () => {
    const { run, hub } = await open();
    const pending = run("scripts/slow.sh").catch(() => undefined);
    await eventually(() => hub.exec.groups.list().length === 1);
    const group = hub.exec.groups.list()[0] as number;
    hub.close();
    expect(await survivors([group])).toEqual([]);
    await pending;
  });

  test("the server stays responsive: skill calls are answered while a script is still running", async () => {
    const { run, call, hub, dir } = await open();
    const script = run("scripts/wait.sh");
    await eventually(() => hub.exec.groups.list().length === 1);
    const skill = await call("skill", { name: "tools/echo" });
    const routed = await call("get_skill", { context: "echo arguments" });
    const listed = await call("list_skills", {});
    expect(skill.isError).toBeFalsy();
    expect(routed.isError).toBeFalsy();
    expect(listed.isError).toBeFalsy();
    // wait.sh runs until released, so the calls above were answered while it ran (no clock involved).
    expect(hub.exec.groups.list()).toHaveLength(1);
    write(join(dir, "tools/echo/scripts/release"), "");
    const result = await script;
    expect(result.structuredContent).toMatchObject({ success: true, stdout: "waited\n" });
  });
});

describe("run_script: trust", () => {
  test("server scripts of the project's own skill folders do not run unless scripts.allow_project is set", async () => {
    const project = tempDir();
    writeScriptTree(join(project, ".claude", "skills"));
    const auto = await connect({ flags: { project }, env: { SKILLHUB_TOOLS: "auto" } });
    closers.push(auto.close);
    expect((await auto.client.listTools()).tools.map((t) => t.name)).not.toContain("run_script");
    const session = await connect({ flags: { project }, env: { SKILLHUB_TOOLS: "all" } });
    closers.push(session.close);
    const refused = await session.call("run_script", {
      skill_path: "tools/echo",
      file: "scripts/args.sh",
      args: { name: "x" },
    });
    expect(error(refused).code).toBe("SCRIPTS_DISABLED");
    expect(error(refused).message).toContain("scripts.allow_project");
    session.hub.config.scripts.allow_project = true;
    const ran = await session.call("run_script", {
      skill_path: "tools/echo",
      file: "scripts/args.sh",
      args: { name: "x" },
    });
    expect(ran.structuredContent).toMatchObject({ success: true });
  });
});

describe("run_script in tools/list", () => {
  const names = async (s: Awaited<ReturnType<typeof open>>) => (await s.client.listTools()).tools.map((t) => t.name);

  test("auto: offered when scripts are enabled and an enabled tree node declares a server script", async () => {
    const withServer = await open(undefined, { env: { SKILLHUB_TOOLS: "auto" } });
    expect(await names(withServer)).toContain("run_script");
    withServer.hub.config.scripts.enabled = false;
    expect(await names(withServer)).not.toContain("run_script");
    const claudeOnly = tempDir();
    writeNode(claudeOnly, "a.md", { keywords: ["a"], extra: "scripts:\n  - file: s.sh\n    description: mine" });
    expect(await names(await open(claudeOnly, { env: { SKILLHUB_TOOLS: "auto" } }))).not.toContain("run_script");
    const filtered = await open(undefined, {
      env: { SKILLHUB_TOOLS: "auto", SKILLHUB_ENABLED_SKILLS: "tools/_index" },
    });
    expect(await names(filtered)).not.toContain("run_script");
  });

  test("tree and all offer it (answering SCRIPTS_DISABLED when scripts are off); its schema describes every field", async () => {
    const tree = await open(undefined, { env: { SKILLHUB_TOOLS: "tree" } });
    const tool = (await tree.client.listTools()).tools.find((t) => t.name === "run_script");
    // `args` may be left out when the script takes none.
    expect(tool?.inputSchema.required).toEqual(["skill_path", "file"]);
    for (const field of ["skill_path", "file", "args", "cwd"])
      expect((tool?.inputSchema.properties?.[field] as { description?: string }).description?.length).toBeGreaterThan(
        20,
      );
    expect(tool?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tool?.outputSchema).toBeDefined();
  });
});

describe("run_script runs the script its check approved", () => {
  test("a resource folder's link swapped for one to elsewhere as the process starts: the approved script runs", async () => {
    const skills = tempDir("skillhub-swap-");
    writeNode(skills, "ops.md", {
      keywords: ["ops"],
      extra: "scripts:\n  - file: run.sh\n    description: Runs\n    execution: server",
    });
    write(join(skills, "ops-files", "run.sh"), "echo approved\n");
    symlinkSync("ops-files", join(skills, "ops"));
    const decoy = tempDir("skillhub-decoy-");
    write(join(decoy, "run.sh"), "echo DECOY\n");
    const argvs: string[][] = [];
    const spawn: SpawnFn = (argv, options) => {
      argvs.push(argv);
      rmSync(join(skills, "ops"));
      symlinkSync(decoy, join(skills, "ops"));
      return defaultSpawn(argv, options);
    };
    const { call } = await open(skills, { hub: { exec: { spawn } } });
    const ran = await call("run_script", { skill_path: "ops", file: "run.sh" });
    expect(ran.structuredContent).toMatchObject({ stdout: "approved\n", exit_code: 0 });
    expect(argvs[0]?.at(-1)).toBe(realpathSync(join(skills, "ops-files", "run.sh")));
  });
});
