/**
 * Pinned command-line tools from the npm registry, installed on first use into
 * .tools/npm/<name>@<version>/ (never into package.json). Used by
 * `make conformance`, the MCP Inspector test and `make clients`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");

/** The versions `make conformance` runs; change them here only. */
export const PINNED = {
  conformance: { name: "@modelcontextprotocol/conformance", version: "0.2.0-alpha.12" },
  inspector: { name: "@modelcontextprotocol/inspector", version: "2.12.0" },
  /** The MCP Bundle CLI and the real clients `make clients` proves SkillHub in (Claude Code wants Node >= 22). */
  mcpb: { name: "@anthropic-ai/mcpb", version: "2.1.2" },
  claudeCode: { name: "@anthropic-ai/claude-code", version: "2.1.332" },
  geminiCli: { name: "@google/gemini-cli", version: "0.61.0" },
  codex: { name: "@openai/codex", version: "0.171.0" },
  /** What Claude Desktop's HTTP snippet starts (`npx -y mcp-remote`): it bridges stdio to the shared server. */
  mcpRemote: { name: "mcp-remote", version: "0.15.1" },
  /** The conformance suite and the Inspector want Node >= 22.19; the registry has it as node-<os>-<arch>. */
  node: { version: "22.23.3", minimum: [22, 19] as const },
} as const;

/** Where `name@version` is installed: .tools/npm/<name>@<version>/. */
const toolPrefix = (name: string, version: string) =>
  join(ROOT, ".tools", "npm", `${name.replace("/", "+")}@${version}`);

/** Whether `name@version` is installed already (then no registry is needed for it). */
export function npmToolInstalled(name: string, version: string): boolean {
  return installedVersion(join(toolPrefix(name, version), "node_modules", name)) === version;
}

/** The package folder of `name@version`, installed with npm when missing. */
export function ensureNpmTool(name: string, version: string): string {
  const prefix = toolPrefix(name, version);
  const dir = join(prefix, "node_modules", name);
  if (installedVersion(dir) === version) return dir;
  process.stderr.write(`Installing ${name}@${version} from the npm registry into ${prefix} ...\n`);
  const npm = Bun.spawnSync(
    [
      "npm",
      "install",
      "--prefix",
      prefix,
      "--no-save",
      "--no-package-lock",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      `${name}@${version}`,
    ],
    {
      stdout: "inherit",
      stderr: "inherit",
    },
  );
  if (npm.exitCode !== 0 || installedVersion(dir) !== version)
    throw new Error(`npm could not install ${name}@${version}`);
  return dir;
}

/** A bin script of an installed package, by its bin name. */
export function binOf(packageDir: string, bin: string): string {
  const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
    bin?: string | Record<string, string>;
  };
  const rel = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.[bin];
  if (!rel) throw new Error(`${packageDir} has no bin ${bin}`);
  return join(packageDir, rel);
}

/**
 * A Node >= 22.19: the one on PATH when recent enough, else the pinned
 * node-<os>-<arch> package from the npm registry.
 */
export function ensureNode22(): string {
  const onPath = Bun.which("node");
  if (onPath && recentEnough(Bun.spawnSync([onPath, "--version"]).stdout.toString())) return onPath;
  const arch = process.arch === "x64" || process.arch === "arm64" ? process.arch : undefined;
  const os = process.platform === "linux" || process.platform === "darwin" ? process.platform : undefined;
  if (!arch || !os)
    throw new Error(`no Node 22 package for ${process.platform}-${process.arch}; put Node >= 22.19 on PATH`);
  const dir = ensureNpmTool(`node-${os}-${arch}`, PINNED.node.version);
  return join(dir, "bin", "node");
}

function recentEnough(versionText: string): boolean {
  const [major = 0, minor = 0] = versionText.trim().replace(/^v/, "").split(".").map(Number);
  const [wantMajor, wantMinor] = PINNED.node.minimum;
  return major > wantMajor || (major === wantMajor && minor >= wantMinor);
}

function installedVersion(dir: string): string | undefined {
  const file = join(dir, "package.json");
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, "utf8")) as { version?: string }).version;
}
