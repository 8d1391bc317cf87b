import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { LAUNCHER, PLUGIN_DIR, staleClientPackages } from "../../scripts/client-packages.ts";
import { mcpbManifest } from "../../scripts/release/mcpb.ts";
import { TARGETS, targetById } from "../../scripts/release/targets.ts";
import { initializeAndList } from "../../scripts/smoke.ts";
import { parseCommandLine } from "../../src/config/args.ts";
import { ENV_SETTINGS } from "../../src/config/settings.ts";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { closedPort } from "../helpers/git.ts";
import { fakeRelease, serveReleases, tamper } from "./fake-release.ts";

const ROOT = join(import.meta.dir, "..", "..");
const LAUNCHER_PATH = join(ROOT, PLUGIN_DIR, LAUNCHER);
const SHELL = Bun.which("dash") ?? "/bin/sh";
/** The machine's tools (curl, tar, sha256sum…) but no skillhub: only what a test puts there. */
const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

let server: ReturnType<typeof Bun.serve>;
let requests: string[] = [];
let good: string;
let tampered: string;

beforeAll(async () => {
  // The stand-in binaries print "fake skillhub <target> <arguments>": enough to see what was started.
  const linux = [targetById("linux-x64")];
  good = await fakeRelease(tempDir("skillhub-launcher-good-"), pkg.version, linux);
  tampered = await fakeRelease(tempDir("skillhub-launcher-bad-"), pkg.version, linux);
  tamper(tampered, `skillhub-${pkg.version}-linux-x64.tar.gz`);
  ({ server, requests } = serveReleases(() => ({ good, tampered })));
});
afterAll(async () => {
  server?.stop(true);
  await cleanupTemp();
});

/** The plugin's launcher as a client starts it, with a fresh HOME (unless given, or `withHome` is false) and `env`. */
async function launch(args: string[], env: Record<string, string> = {}, withHome = true) {
  const home = env.HOME ?? tempDir("skillhub-launcher-home-");
  const proc = Bun.spawn([SHELL, LAUNCHER_PATH, ...args], {
    env: { PATH: SYSTEM_PATH, SKILLHUB_PLATFORM: "linux-x64", ...env, ...(withHome ? { HOME: home } : {}) },
    cwd: home,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, out, err] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code, out, err, home };
}

describe("client packages (Claude Code plugin and marketplace, Gemini extension)", () => {
  test("are current: package.json's version, the released install.sh (make client-packages)", () => {
    expect(staleClientPackages()).toEqual([]);
  });

  test("the plugin's .mcp.json and the Gemini extension start the launcher, which is executable", () => {
    const mcp = JSON.parse(readFileSync(join(ROOT, PLUGIN_DIR, ".mcp.json"), "utf8"));
    expect(mcp.mcpServers.skillhub.command.replace("${CLAUDE_PLUGIN_ROOT}", join(ROOT, PLUGIN_DIR))).toBe(
      LAUNCHER_PATH,
    );
    const gemini = JSON.parse(readFileSync(join(ROOT, "gemini-extension.json"), "utf8"));
    expect(gemini.mcpServers.skillhub.command.replace("${extensionPath}", ROOT).replaceAll("${/}", "/")).toBe(
      LAUNCHER_PATH,
    );
    const marketplace = JSON.parse(readFileSync(join(ROOT, ".claude-plugin", "marketplace.json"), "utf8"));
    expect(join(ROOT, marketplace.plugins[0].source)).toBe(join(ROOT, PLUGIN_DIR));
    expect(Bun.spawnSync(["test", "-x", LAUNCHER_PATH]).exitCode).toBe(0);
  });
});

describe("the launcher (packaging/claude-plugin/bin/skillhub)", () => {
  test("runs the skillhub on PATH, which answers initialize and tools/list; nothing is downloaded", async () => {
    const home = tempDir("skillhub-launcher-home-");
    const bin = join(home, "bin");
    mkdirSync(bin);
    symlinkSync(binary(), join(bin, "skillhub"));
    const skills = tempDir("skillhub-launcher-skills-");
    writeSkill(skills, "commit-style", { description: "How this team writes commit messages." });
    const before = requests.length;
    const { serverInfo, tools } = await initializeAndList(
      [SHELL, LAUNCHER_PATH, "serve", "--skills-dir", skills, "--no-watch"],
      { cwd: home, env: { PATH: `${bin}:${SYSTEM_PATH}`, HOME: home, SKILLHUB_DOWNLOAD_URL: `${server.url}good` } },
    );
    expect(serverInfo.name).toBe("skillhub");
    expect(tools.find((t) => t.name === "skill")?.description).toContain("commit-style");
    expect(requests.length).toBe(before);
  });

  test("a relative PATH entry (., bin), or one holding a pattern, finds nothing in the working folder: no skillhub, no program the launcher or install.sh runs", async () => {
    // What a cloned repository, the client's working folder, could hold: each writes a mark, then fails.
    const project = tempDir("skillhub-launcher-project-");
    const marks = join(project, "marks");
    for (const dir of [project, join(project, "bin")])
      for (const name of ["skillhub", "dirname", "sh", "curl", "mktemp", "sha256sum", "tar"]) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, name), `#!/bin/sh\necho ${name} >> '${marks}'\nexit 1\n`, { mode: 0o755 });
      }
    // `${project}/*` is a folder's name; expanded as a pattern, it would be the project's bin/ among others.
    for (const path of [`.:${SYSTEM_PATH}`, `bin:${SYSTEM_PATH}`, `${project}/*:${SYSTEM_PATH}`]) {
      const home = tempDir("skillhub-launcher-home-");
      const proc = Bun.spawn([SHELL, LAUNCHER_PATH, "serve"], {
        env: { PATH: path, HOME: home, SKILLHUB_PLATFORM: "linux-x64", SKILLHUB_DOWNLOAD_URL: `${server.url}good` },
        cwd: project,
        stdout: "pipe",
        stderr: "pipe",
      });
      const [code, out] = await Promise.all([proc.exited, new Response(proc.stdout).text()]);
      // The plugin's release was installed and started; nothing of the working folder ran.
      expect({ path, code, out, marks: existsSync(marks) }).toEqual({
        path,
        code: 0,
        out: "fake skillhub linux-x64 serve\n",
        marks: false,
      });
    }
  });

  test("with none on PATH, runs ~/.local/bin/skillhub, where install.sh and a build from source put it; nothing is downloaded", async () => {
    const home = tempDir("skillhub-launcher-home-");
    mkdirSync(join(home, ".local", "bin"), { recursive: true });
    symlinkSync(binary(), join(home, ".local", "bin", "skillhub"));
    const before = requests.length;
    const run = await launch(["--version"], { HOME: home, SKILLHUB_DOWNLOAD_URL: `${server.url}good` });
    expect(run.code, run.err).toBe(0);
    expect(run.out).toBe(`${pkg.version}\n`);
    expect(run.err).toBe("");
    expect(requests.length).toBe(before);
  });

  test("started without HOME, runs the release SKILLHUB_HOME holds", async () => {
    const skillhubHome = tempDir("skillhub-launcher-skillhub-home-");
    mkdirSync(join(skillhubHome, "bin", pkg.version), { recursive: true });
    symlinkSync(binary(), join(skillhubHome, "bin", pkg.version, "skillhub"));
    const { code, out, err } = await launch(
      ["--version"],
      { SKILLHUB_HOME: skillhubHome, SKILLHUB_DOWNLOAD_URL: `${server.url}good` },
      false,
    );
    expect(code, err).toBe(0);
    expect(out).toBe(`${pkg.version}\n`);
  });

  test("without one, installs the plugin's release once, checksum first, then runs it (its own folder on PATH is skipped)", async () => {
    const first = await launch(["serve", "--no-watch"], {
      PATH: `${join(ROOT, PLUGIN_DIR, "bin")}:${SYSTEM_PATH}`,
      SKILLHUB_DOWNLOAD_URL: `${server.url}good`,
    });
    expect(first.code, first.err).toBe(0);
    expect(first.out).toBe("fake skillhub linux-x64 serve --no-watch\n");
    expect(first.err).toContain(`installing SkillHub ${pkg.version}`);
    const cached = join(first.home, ".skillhub", "bin", pkg.version, "skillhub");
    expect(existsSync(cached)).toBe(true);
    // The second start needs no network: the download folder is now a closed port.
    const again = await launch(["--version"], {
      HOME: first.home,
      SKILLHUB_DOWNLOAD_URL: `http://127.0.0.1:${closedPort()}/gone`,
    });
    expect(again.code, again.err).toBe(0);
    expect(again.out.trim()).toBe(pkg.version);
    expect(again.err).toBe("");
  });

  test("refuses an archive whose checksum is not SHA256SUMS': one clear message, nothing on stdout, nothing kept", async () => {
    const run = await launch(["serve"], { SKILLHUB_DOWNLOAD_URL: `${server.url}tampered` });
    expect(run.code).toBe(1);
    expect(run.out).toBe("");
    expect(run.err).toContain("checksum mismatch");
    expect(run.err).toContain(`SkillHub ${pkg.version} could not be installed`);
    expect(existsSync(join(run.home, ".skillhub", "bin", pkg.version, "skillhub"))).toBe(false);
  });

  test("offline, without a copy: says so in one line on stderr and exits 1", async () => {
    const run = await launch(["serve"], { SKILLHUB_DOWNLOAD_URL: `http://127.0.0.1:${closedPort()}/release` });
    expect(run.code).toBe(1);
    expect(run.out).toBe("");
    expect(run.err).toContain("could not download");
  });
});

describe("MCP Bundle manifests (scripts/release/mcpb.ts)", () => {
  test("one per target, for its platform, starting its binary", () => {
    for (const target of TARGETS) {
      const manifest = mcpbManifest("1.2.3", target) as {
        manifest_version: string;
        server: { type: string; entry_point: string };
        compatibility: { platforms: string[] };
      };
      expect(manifest.manifest_version).toBe("0.3");
      expect(manifest.server.type).toBe("binary");
      expect(manifest.server.entry_point).toBe(`server/skillhub${target.exe}`);
      expect(manifest.compatibility.platforms).toEqual([target.os === "windows" ? "win32" : target.os]);
    }
  });

  test("user settings reach real variables and arguments: folders after serve, the rest as environment", () => {
    const manifest = mcpbManifest("1.2.3", targetById("linux-x64")) as {
      server: { mcp_config: { args: string[]; env: Record<string, string> } };
      user_config: Record<string, unknown>;
    };
    const { args, env } = manifest.server.mcp_config;
    for (const name of Object.keys(env)) expect(Object.keys(ENV_SETTINGS)).toContain(name);
    const used = JSON.stringify(manifest.server.mcp_config).match(/\$\{user_config\.(\w+)\}/g) ?? [];
    expect(used.map((u) => u.slice(14, -1)).sort()).toEqual(Object.keys(manifest.user_config).sort());
    // As the host expands a two-folder setting: one argument per folder.
    const expanded = args.flatMap((a) => (a === "${user_config.skills_dirs}" ? ["/a/skills", "/b/skills"] : [a]));
    const parsed = parseCommandLine(expanded);
    expect(parsed.command).toBe("serve");
    expect(parsed.flags["skills-dir"]).toEqual(["/a/skills", "/b/skills"]);
  });
});
