import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, linkSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { clientNamed, selfLaunch } from "../../src/commands/print-config.ts";
import { inNpxCache } from "../../src/util/program-name.ts";
import { shellWords } from "../../src/util/shell-words.ts";
import { binary } from "../helpers/binary.ts";
import { runCli } from "../helpers/cli.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";

afterAll(cleanupTemp);

/** The compiled binary as `skillhub` in `dir` (made): a hard link, or a copy across file systems. */
function binaryIn(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const bin = join(dir, "skillhub");
  try {
    linkSync(binary(), bin);
  } catch {
    copyFileSync(binary(), bin);
  }
  return bin;
}

const CLIENT_LIST = "Clients: claude-desktop, claude-code, cursor, vscode, windsurf, codex, gemini.";

describe("print-config takes a client as its users name it", () => {
  test("its own name in any case, or the client's title, quoted or in separate words", async () => {
    for (const typed of ["Cursor", "VS Code", "vs-code", "Gemini CLI", "gemini-cli", "claude_desktop", "Claude Code"])
      expect({ typed, client: clientNamed(typed) }).toMatchObject({ typed, client: expect.any(String) });
    expect(clientNamed("VS Code")).toBe("vscode");
    expect(clientNamed("Gemini CLI")).toBe("gemini");
    const words = await runCli(["print-config", "Gemini", "CLI"]);
    expect(words.code).toBe(0);
    expect(words.err).toContain("gemini mcp add --scope user skillhub");
    const cased = await runCli(["print-config", "Cursor"]);
    expect(cased.code).toBe(0);
    expect(JSON.parse(cased.out).mcpServers.skillhub.command).toBe(process.execPath);
  });

  test("where the file goes is said the same for a local and a shared server, and where a client has no build", async () => {
    for (const client of ["cursor", "vscode"]) {
      const local = (await runCli(["print-config", client])).err;
      const shared = (await runCli(["print-config", client, "--http", "http://hub.example:8000/mcp"])).err;
      const where = client === "cursor" ? "(or .cursor/mcp.json in a project)" : "(or your user mcp.json";
      expect({ client, local, shared }).toMatchObject({
        local: expect.stringContaining(where),
        shared: expect.stringContaining(where),
      });
    }
    expect((await runCli(["print-config", "claude-desktop"])).err).toContain("there is no Linux build");
  });

  test("`claude` is two clients: the error names both, and prints nothing on stdout", async () => {
    const claude = await runCli(["print-config", "claude"]);
    expect(claude.code).toBe(2);
    expect(claude.out).toBe("");
    expect(claude.err).toBe(
      `skillhub print-config: unknown client "claude". Did you mean 'claude-desktop' or 'claude-code'? ${CLIENT_LIST}\n`,
    );
    const desktop = await runCli(["print-config", "desktop"]);
    expect(desktop.err).toContain("Did you mean 'claude-desktop'?");
  });

  test("two clients at once are refused, not the second one dropped", async () => {
    const two = await runCli(["print-config", "claude-code", "cursor"]);
    expect(two.code).toBe(2);
    expect(two.out).toBe("");
    expect(two.err).toBe(
      `skillhub print-config: one client at a time: run it once for each of "claude-code", "cursor". ${CLIENT_LIST}\n`,
    );
  });

  test("Codex and Gemini CLI are offered their own `mcp add` command, which merges into an existing file", async () => {
    const codex = await runCli(["print-config", "codex", "--no-watch"]);
    expect(codex.err).toContain(`# run once:\ncodex mcp add skillhub -- ${process.execPath} `);
    expect(codex.err).toContain(
      "--no-watch\n# or merge into ~/.codex/config.toml. `codex mcp list` then shows it enabled",
    );
    const gemini = await runCli(["print-config", "gemini", "--tools", "hub"]);
    expect(gemini.err).toContain(
      "# run once (user scope; drop --scope user to add it to this project only):\ngemini mcp add --scope user skillhub ",
    );
    expect(gemini.err).toContain("--tools hub\n# or merge into ~/.gemini/settings.json");
    const http = await runCli(["print-config", "gemini", "--http", "http://127.0.0.1:8000/mcp"], {
      SKILLHUB_HTTP_TOKEN: "t0ken-for-the-test-0123",
    });
    expect(http.err).toContain(
      "gemini mcp add --scope user --transport http skillhub http://127.0.0.1:8000/mcp --header 'Authorization: Bearer ${SKILLHUB_HTTP_TOKEN}'\n",
    );
    expect(http.err + http.out).not.toContain("t0ken-for-the-test-0123");
  });
});

describe("print-config run through `npx skillhub`", () => {
  const cached = "/home/me/.npm/_npx/9f86d081884c7d65/node_modules/@skillhub-dev/skillhub-linux-x64/bin/skillhub";

  test("the binary in npm's npx cache is started as `npx -y skillhub`, never by its path in the cache", () => {
    expect(inNpxCache(cached)).toBe(true);
    expect(inNpxCache("C:\\Users\\me\\AppData\\Local\\npm-cache\\_npx\\9f86\\node_modules\\x\\skillhub.exe")).toBe(
      true,
    );
    expect(
      inNpxCache("/usr/lib/node_modules/skillhub/node_modules/@skillhub-dev/skillhub-linux-x64/bin/skillhub"),
    ).toBe(false);
    expect(selfLaunch("/$bunfs/root/skillhub", cached)).toEqual({ command: "npx", args: ["-y", "skillhub"] });
    expect(selfLaunch("/$bunfs/root/skillhub", "/opt/skillhub/bin/skillhub").command).toBe(
      "/opt/skillhub/bin/skillhub",
    );
  });

  test("the compiled binary, run from an npx cache folder, prints npx with its flags for every client", () => {
    const bin = binaryIn(
      join(tempDir("skillhub-npx-"), ".npm", "_npx", "9f86d081884c7d65", "node_modules", "skillhub-bin"),
    );
    const printed = Bun.spawnSync([bin, "print-config", "cursor", "--no-watch"], {
      env: { HOME: tempDir(), PATH: "/usr/bin:/bin" },
    });
    expect(printed.exitCode).toBe(0);
    expect(JSON.parse(printed.stdout.toString()).mcpServers.skillhub).toEqual({
      command: "npx",
      args: ["-y", "skillhub", "--no-watch"],
    });
    expect(printed.stderr.toString()).toContain("# npx fetches SkillHub again whenever npm empties its cache");
    const gemini = Bun.spawnSync([bin, "print-config", "gemini"], { env: { HOME: tempDir(), PATH: "/usr/bin:/bin" } });
    expect(gemini.stderr.toString()).toContain("gemini mcp add --scope user skillhub npx -y skillhub\n");
  });
});

describe("print-config and the settings of this shell's environment", () => {
  test("SkillHub settings set only in the environment are named, since the client does not pass them on", async () => {
    const env = { SKILLS_REPO: "https://git.example.com/team/skills.git", SKILLHUB_FROZEN: "1" };
    const printed = await runCli(["print-config", "cursor"], {
      ...env,
      GITHUB_TOKEN: "ghp_secret0123456789",
      SKILLHUB_PORT: "9000",
    });
    expect(printed.code).toBe(0);
    expect(printed.err).toContain(
      '# SKILLS_REPO, SKILLHUB_FROZEN are set here but not in the snippet, and the client starts SkillHub with its own environment: add them to the server\'s "env" in the file, or set them in ~/.skillhub/config.yaml',
    );
    expect(printed.err).toContain(
      "# for a team's repository, run `skillhub add URL` in the project: it records it in the project's skillhub.yaml, which the project's lock pins",
    );
    const frozenOnly = await runCli(["print-config", "cursor"], { SKILLHUB_FROZEN: "1" });
    expect(frozenOnly.err).toContain("SKILLHUB_FROZEN is set here but not in the snippet");
    expect(frozenOnly.err).not.toContain("skillhub add URL");
    // A secret is never named (nor written), and the HTTP server's own settings do not apply.
    expect(printed.err).not.toContain("GITHUB_TOKEN");
    expect(printed.err).not.toContain("SKILLHUB_PORT");
    expect(JSON.parse(printed.out).mcpServers.skillhub.env).toBeUndefined();
    const http = await runCli(["print-config", "cursor", "--http", "http://127.0.0.1:8000/mcp"], env);
    expect(http.err).not.toContain("set here but not in the snippet");
    const clean = await runCli(["print-config", "cursor"]);
    expect(clean.err).not.toContain("set here but not in the snippet");
  });
});

describe("print-config's `mcp add` commands, pasted into a shell, start the very binary with its flags", () => {
  test("a path with spaces, quotes, `$` and `&` reaches the client as one word, in sh and bash", () => {
    const root = tempDir("skillhub-paste-");
    const bin = binaryIn(join(root, `it's $HOME "and" \`x\` & y`));
    const skills = join(root, "my skills $1");
    mkdirSync(skills);
    // Stand-ins for the clients: each prints the arguments it was given, one a line.
    const tools = join(root, "bin");
    mkdirSync(tools);
    for (const name of ["claude", "gemini", "codex"]) {
      writeFileSync(join(tools, name), `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done\n`);
      chmodSync(join(tools, name), 0o755);
    }
    const expected = { claude: "claude mcp add", gemini: "gemini mcp add", codex: "codex mcp add" };
    for (const [client, starts] of [
      ["claude-code", expected.claude],
      ["gemini", expected.gemini],
      ["codex", expected.codex],
    ] as const) {
      const printed = Bun.spawnSync([bin, "print-config", client, "--skills-dir", skills, "--log-level", "debug"], {
        env: { HOME: tempDir(), PATH: "/usr/bin:/bin" },
      });
      expect(printed.exitCode).toBe(0);
      const line = printed.stderr
        .toString()
        .split("\n")
        .find((l) => l.startsWith(starts)) as string;
      for (const shell of ["sh", "bash"]) {
        const ran = Bun.spawnSync([shell, "-c", line], { env: { PATH: `${tools}:/usr/bin:/bin`, HOME: root } });
        const words = ran.stdout.toString().split("\n").slice(0, -1);
        expect({ client, shell, tail: words.slice(-5) }).toEqual({
          client,
          shell,
          tail: [bin, "--skills-dir", skills, "--log-level", "debug"],
        });
      }
    }
  });

  test("a folder with a newline, `$()` and non-ASCII, a value starting with `-`: the same words, a server that starts", () => {
    const root = tempDir("skillhub-paste-");
    const bin = binaryIn(join(root, "app"));
    const skills = join(root, "team skills\n$(touch pwned) `touch pwned2` \u00e9\u4e2d");
    mkdirSync(skills);
    // Stand-ins for the clients: each records the arguments it was given, NUL-separated (an argument may hold a newline).
    const tools = join(root, "bin");
    mkdirSync(tools);
    for (const name of ["claude", "gemini", "codex"]) {
      writeFileSync(join(tools, name), `#!/bin/sh\nprintf '%s\\0' "$@" > "$0.argv"\n`);
      chmodSync(join(tools, name), 0o755);
    }
    const flags = ["--skills-dir", skills, "--root=-odd", "--no-watch"];
    const server = [bin, "--skills-dir", skills, "--root=-odd", "--no-watch"];
    const env = { HOME: root, PATH: "/usr/bin:/bin" };
    for (const [client, tool] of [
      ["claude-code", "claude"],
      ["gemini", "gemini"],
      ["codex", "codex"],
    ] as const) {
      const printed = Bun.spawnSync([bin, "print-config", client, ...flags], { env, cwd: root });
      expect(printed.exitCode).toBe(0);
      const err = printed.stderr.toString();
      // The command runs from its first word to the line that starts the next comment.
      const command = err.slice(err.indexOf(`${tool} mcp add`), err.indexOf("\n# ", err.indexOf(`${tool} mcp add`)));
      const ran = Bun.spawnSync(["sh", "-c", command], {
        env: { PATH: `${tools}:/usr/bin:/bin`, HOME: root },
        cwd: root,
      });
      expect(ran.exitCode).toBe(0);
      const words = readFileSync(join(tools, `${tool}.argv`), "utf8")
        .split("\0")
        .slice(0, -1);
      expect({ client, tail: words.slice(-server.length) }).toEqual({ client, tail: server });
      if (client === "codex") {
        const table = Bun.TOML.parse(printed.stdout.toString()) as { mcp_servers: { skillhub: { args: string[] } } };
        expect(table.mcp_servers.skillhub.args).toEqual(server.slice(1));
      }
    }
    expect(readdirSync(root).filter((name) => name.startsWith("pwned"))).toEqual([]);
    // The server the client starts with those words takes them: it serves until its stdin ends.
    const cursor = Bun.spawnSync([bin, "print-config", "cursor", ...flags], { env, cwd: root });
    const { command, args } = JSON.parse(cursor.stdout.toString()).mcpServers.skillhub;
    const started = Bun.spawnSync([command, ...args], { env: { ...env, LOG_LEVEL: "ERROR" }, stdin: "ignore" });
    expect({ code: started.exitCode, err: started.stderr.toString() }).toEqual({ code: 0, err: "" });
  });

  test("on Windows, the words are quoted as PowerShell reads them back", () => {
    const exe = "C:\\Users\\Ann O'Brien\\AppData\\Local\\Programs\\skillhub\\skillhub.exe";
    expect(shellWords([exe, "--tools", "search,read"], "win32")).toBe(
      "'C:\\Users\\Ann O''Brien\\AppData\\Local\\Programs\\skillhub\\skillhub.exe' --tools 'search,read'",
    );
    // A bare `--` is PowerShell's own end of a script's parameters: npm's claude.ps1 would never see it.
    expect(shellWords(["--", "C:\\skillhub.exe"], "win32")).toBe("'--' C:\\skillhub.exe");
    expect(shellWords(["--", "/usr/bin/skillhub"], "linux")).toBe("-- /usr/bin/skillhub");
    expect(shellWords(["C:\\skillhub\\skillhub.exe", "--log-level", "debug"], "win32")).toBe(
      "C:\\skillhub\\skillhub.exe --log-level debug",
    );
    // PowerShell ends a quote at a typographic one too, and takes `@x` for splatting, `$x` for a variable.
    expect(shellWords(["D:\\Ann\u2019s", "@team", "Authorization: Bearer ${SKILLHUB_HTTP_TOKEN}"], "win32")).toBe(
      "'D:\\Ann\u2019\u2019s' '@team' 'Authorization: Bearer ${SKILLHUB_HTTP_TOKEN}'",
    );
    expect(shellWords([exe], "linux")).toBe(
      `'C:\\Users\\Ann O'\\''Brien\\AppData\\Local\\Programs\\skillhub\\skillhub.exe'`,
    );
  });
});
