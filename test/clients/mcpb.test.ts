import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import pkg from "../../package.json" with { type: "json" };
import { bundleBinary, bundleName, mcpbManifest, packBundle } from "../../scripts/release/mcpb.ts";
import { hostTarget, TARGETS, type Target } from "../../scripts/release/targets.ts";
import { binary } from "../helpers/binary.ts";
import { clientTools, clientToolsEnabled, runTool } from "../helpers/client-tools.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { remoteRepo, skillText } from "../helpers/git.ts";

/**
 * The release's MCP Bundles against the official MCPB CLI (pinned, from .tools/): every target's
 * manifest validates, a bundle unpacks and packs again to the same files, and the unpacked bundle's
 * mcp_config, with ${__dirname} and the user's values substituted by the MCPB library itself (the
 * code Claude Desktop uses), starts the binary and answers initialize and tools/list. Runs under
 * `make clients`.
 */
afterAll(cleanupTemp);

/** This machine's release bundle, made from dist/skillhub, and where `mcpb unpack` put it. */
let bundle: { path: string; target: Target; unpacked: string; work: string };

beforeAll(async () => {
  if (!clientToolsEnabled) return;
  const target = hostTarget();
  if (!target) throw new Error("no release target for this machine");
  const work = tempDir("skillhub-mcpb-out-");
  const path = await packBundle({ version: pkg.version, target, binary: binary(), outDir: work });
  const unpacked = join(work, "unpacked");
  const ran = await mcpb(["unpack", path, unpacked], work);
  if (ran.code !== 0) throw new Error(`mcpb unpack failed: ${ran.out}${ran.err}`);
  bundle = { path, target, unpacked, work };
});

const mcpb = (args: string[], cwd: string) => runTool([...clientTools().mcpb, ...args], { env: toolEnv(), cwd });
const toolEnv = () => ({ PATH: process.env.PATH ?? "", HOME: tempDir("skillhub-mcpb-home-"), NO_COLOR: "1" });

/** Every file under `dir`: relative path → bytes and mode. */
function files(dir: string): Map<string, { bytes: Buffer; mode: number }> {
  const found = new Map<string, { bytes: Buffer; mode: number }>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    found.set(relative(dir, path), { bytes: readFileSync(path), mode: statSync(path).mode & 0o777 });
  }
  return found;
}

/**
 * The server config Claude Desktop derives from an installed bundle: MCPB's own
 * getMcpConfigForManifest, run in Node 22, with the bundle folder and the values the user entered.
 */
async function substituted(dir: string, home: string, userConfig: Record<string, unknown>) {
  const library = join(clientTools().mcpbDir, "dist", "index.js");
  const script = `
    import { readFileSync } from "node:fs";
    const { getMcpConfigForManifest } = await import(${JSON.stringify(library)});
    const manifest = JSON.parse(readFileSync(${JSON.stringify(join(dir, "manifest.json"))}, "utf8"));
    const config = await getMcpConfigForManifest({
      manifest,
      extensionPath: ${JSON.stringify(dir)},
      systemDirs: { HOME: ${JSON.stringify(home)} },
      userConfig: ${JSON.stringify(userConfig)},
      pathSeparator: "/",
    });
    process.stdout.write(JSON.stringify(config));`;
  const ran = await runTool([clientTools().node, "--input-type=module", "-e", script], { env: toolEnv(), cwd: dir });
  if (ran.code !== 0) throw new Error(`getMcpConfigForManifest failed: ${ran.err}`);
  return JSON.parse(ran.out) as { command: string; args: string[]; env: Record<string, string> };
}

/** Connects as Claude Desktop would, with the substituted config: initialize, then tools/list. */
async function connect(config: { command: string; args: string[]; env: Record<string, string> }, home: string) {
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: { PATH: process.env.PATH ?? "", HOME: home, LOG_LEVEL: "WARN", ...config.env },
    cwd: "/",
    stderr: "pipe",
  });
  const client = new Client({ name: "claude-desktop-stand-in", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

describe.skipIf(!clientToolsEnabled)("MCP Bundles (.mcpb) and the official mcpb CLI", () => {
  test("`mcpb validate` passes on every target's manifest, and fails on a wrong server type", async () => {
    for (const target of TARGETS) {
      const dir = tempDir(`skillhub-mcpb-${target.id}-`);
      write(join(dir, "manifest.json"), JSON.stringify(mcpbManifest(pkg.version, target), null, 2));
      write(join(dir, bundleBinary(target)), "stand-in");
      const checked = await mcpb(["validate", dir], dir);
      expect(checked.code, `${target.id}: ${checked.out}${checked.err}`).toBe(0);
      expect(checked.out).toContain("Manifest schema validation passes");
    }
    const bad = tempDir("skillhub-mcpb-bad-");
    const manifest = mcpbManifest(pkg.version, TARGETS[0] as (typeof TARGETS)[number]);
    write(
      join(bad, "manifest.json"),
      JSON.stringify({ ...manifest, server: { ...(manifest.server as object), type: "exe" } }),
    );
    expect((await mcpb(["validate", bad], bad)).code).not.toBe(0);
  });

  test("a release bundle unpacks to its manifest and executable binary, and packs again to the same files", async () => {
    const { path, target, unpacked, work } = bundle;
    expect(path).toEndWith(bundleName(pkg.version, target));
    const info = await mcpb(["info", path], work);
    expect(info.code, info.out + info.err).toBe(0);
    const a = files(unpacked);
    expect([...a.keys()].sort()).toEqual(["manifest.json", bundleBinary(target)]);
    expect(a.get(bundleBinary(target))?.mode).toBe(0o755);
    expect(a.get(bundleBinary(target))?.bytes.equals(readFileSync(binary()))).toBe(true);
    expect(JSON.parse(a.get("manifest.json")?.bytes.toString() ?? "")).toEqual(mcpbManifest(pkg.version, target));

    const repacked = join(work, "repacked.mcpb");
    const packed = await mcpb(["pack", unpacked, repacked], work);
    expect(packed.code, packed.out + packed.err).toBe(0);
    const second = join(work, "second");
    expect((await mcpb(["unpack", repacked, second], work)).code).toBe(0);
    const b = files(second);
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    for (const [path, file] of a) {
      expect(b.get(path)?.bytes.equals(file.bytes), path).toBe(true);
      expect(b.get(path)?.mode, path).toBe(file.mode);
    }
  });

  test("the unpacked bundle's mcp_config, substituted as the MCPB spec says, starts SkillHub with the user's settings", async () => {
    const dir = bundle.unpacked;
    const home = tempDir("skillhub-mcpb-user-");

    // Nothing entered: the defaults expand to `serve` alone and empty variables; the default profile.
    const plain = await substituted(dir, home, {});
    expect(plain.command).toBe(join(dir, "server", "skillhub"));
    expect(plain.args).toEqual(["serve"]);
    const bare = await connect(plain, home);
    try {
      expect(bare.getServerVersion()?.version).toBe(pkg.version);
      expect((await bare.listTools()).tools.map((t) => t.name)).toContain("skill");
    } finally {
      await bare.close();
    }

    // Two folders, a team repository and a tool list, as the install dialog collects them.
    const first = tempDir("skillhub-mcpb-skills-a-");
    const second = tempDir("skillhub-mcpb-skills-b-");
    writeSkill(first, "changelog-writer", { description: "Writes the changelog." });
    writeSkill(second, "api-reviewer", { description: "Reviews HTTP APIs." });
    const team = remoteRepo("team-skills", { "skills/deploy-checklist/SKILL.md": skillText("deploy-checklist") });
    const config = await substituted(dir, home, {
      skills_dirs: [first, second],
      team_repository: team.url,
      tools: "skill,refresh_skills",
    });
    expect(config.args).toEqual(["serve", first, second]);
    expect(config.env).toMatchObject({ SKILLS_REPO: team.url, SKILLHUB_TOOLS: "skill,refresh_skills" });
    const client = await connect(config, home);
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["refresh_skills", "skill"]);
      // The team repository is pulled before the answer: then its skill loads like the folders' ones.
      await client.callTool({ name: "refresh_skills", arguments: {} });
      for (const name of ["changelog-writer", "api-reviewer", "deploy-checklist"]) {
        const loaded = await client.callTool({ name: "skill", arguments: { name } });
        expect(JSON.stringify(loaded.content)).toContain(`Loading: ${name}`);
      }
    } finally {
      await client.close();
    }
  });
});
