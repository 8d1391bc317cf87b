/**
 * Pinned command-line tools from the npm registry, installed on first use into
 * .tools/npm/<name>@<version>/ (never into package.json). Used by
 * `make conformance`, the MCP Inspector test and `make clients`.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { statOf } from "../src/util/stat.ts";

const ROOT = join(import.meta.dir, "..");

/**
 * A command that must succeed before an install counts: `bin` of the package run with `args`. For the
 * packages whose executable is native and put in place by a postinstall script (a copy of hundreds of
 * megabytes, which a full disk cuts short while npm may still exit 0).
 */
export interface ToolCheck {
  bin: string;
  args: readonly string[];
}

/** The versions `make conformance` runs; change them here only. */
export const PINNED = {
  conformance: { name: "@modelcontextprotocol/conformance", version: "0.2.0-alpha.12" },
  inspector: { name: "@modelcontextprotocol/inspector", version: "2.12.0" },
  /** The MCP Bundle CLI and the real clients `make clients` proves SkillHub in (Claude Code wants Node >= 22). */
  mcpb: { name: "@anthropic-ai/mcpb", version: "2.1.2" },
  claudeCode: { name: "@anthropic-ai/claude-code", version: "2.1.332", check: { bin: "claude", args: ["--version"] } },
  geminiCli: { name: "@google/gemini-cli", version: "0.61.0" },
  codex: { name: "@openai/codex", version: "0.171.0" },
  /** What Claude Desktop's HTTP snippet starts (`npx -y mcp-remote`): it bridges stdio to the shared server. */
  mcpRemote: { name: "mcp-remote", version: "0.15.1" },
  /** The conformance suite and the Inspector want Node >= 22.19; the registry has it as node-<os>-<arch>. */
  node: { version: "22.23.3", minimum: [22, 19] as const, check: { bin: "node", args: ["--version"] } },
} as const;

/** Where `name@version` is installed: .tools/npm/<name>@<version>/. */
const toolPrefix = (name: string, version: string, root: string) =>
  join(root, ".tools", "npm", `${name.replace("/", "+")}@${version}`);

/**
 * Written into a tool's folder last, once npm has finished and the tool's check has passed. A folder
 * without it is an install cut short (a full disk, an interrupted run): its package.json may be there
 * while its executable is not, and npm, taking the package for installed, would not repair it.
 */
const STAMP = ".installed";

/** Where the tools live and how they are fetched; tests give their own. */
export interface InstallOptions {
  /** The checkout whose .tools/npm/ holds the tools (default: this one). */
  root?: string;
  /** The npm command (default `npm` on PATH). */
  npm?: readonly string[];
  /** What must run before the install counts (default: the check PINNED gives the tool, if any). */
  check?: ToolCheck;
}

/** Whether `name@version` is installed, completely (then no registry is needed for it). */
export function npmToolInstalled(name: string, version: string, options: InstallOptions = {}): boolean {
  const prefix = toolPrefix(name, version, options.root ?? ROOT);
  return stampOf(prefix) === version && installedVersion(join(prefix, "node_modules", name)) === version;
}

/**
 * The package folder of `name@version`, installed with npm when it is not installed completely. A
 * folder left by an install cut short is removed first, and so is one whose install fails, so that a
 * later run starts afresh without anyone removing it by hand.
 */
export function ensureNpmTool(name: string, version: string, options: InstallOptions = {}): string {
  const prefix = toolPrefix(name, version, options.root ?? ROOT);
  const dir = join(prefix, "node_modules", name);
  if (npmToolInstalled(name, version, options)) return dir;
  // Two make targets at once (conformance beside clients) would each remove the other's install.
  const release = installLock(prefix);
  try {
    if (npmToolInstalled(name, version, options)) return dir;
    install(name, version, prefix, dir, options);
    return dir;
  } finally {
    release();
  }
}

/** How long a run waits for another run's install of the same tool (Claude Code's is ~400 MB). */
const LOCK_WAIT_MS = 30 * 60_000;

/**
 * Hold `<prefix>.lock` (a folder: made atomically, or not at all) for this process; a lock whose
 * process has ended is taken over. Returns its release.
 */
function installLock(prefix: string): () => void {
  const lock = `${prefix}.lock`;
  mkdirSync(dirname(prefix), { recursive: true });
  const until = Date.now() + LOCK_WAIT_MS;
  for (let said = false; ; ) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), `${process.pid}\n`);
      return () => rmSync(lock, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    if (!alive(lock)) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > until) throw new Error(`${lock} is held by another install for too long; remove it if none runs`);
    if (!said) process.stderr.write(`Waiting for another run's install into ${prefix} ...\n`);
    said = true;
    Bun.sleepSync(250);
  }
}

/** Whether the process that holds `lock` still runs (a lock made this minute, its pid not yet written, does). */
function alive(lock: string): boolean {
  const file = join(lock, "pid");
  if (!existsSync(file)) return Date.now() - (statOf(lock)?.mtimeMs ?? 0) < 60_000;
  const pid = Number(readFileSync(file, "utf8").trim());
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function install(name: string, version: string, prefix: string, dir: string, options: InstallOptions): void {
  rmSync(prefix, { recursive: true, force: true });
  process.stderr.write(`Installing ${name}@${version} from the npm registry into ${prefix} ...\n`);
  const npm = Bun.spawnSync(
    [
      ...(options.npm ?? ["npm"]),
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
  const problem =
    npm.exitCode !== 0 || installedVersion(dir) !== version
      ? `npm could not install ${name}@${version}`
      : checkProblem(dir, options.check ?? checkOf(name));
  if (problem) {
    rmSync(prefix, { recursive: true, force: true });
    throw new Error(`${problem}; the partial install is removed, and the next run installs it again`);
  }
  writeFileSync(join(prefix, STAMP), `${version}\n`);
}

/** The check PINNED gives the package `name`. */
function checkOf(name: string): ToolCheck | undefined {
  for (const tool of Object.values(PINNED))
    if ("name" in tool && tool.name === name && "check" in tool) return tool.check;
  return undefined;
}

/** Why the installed package fails its check, or undefined when it passes (or has none). */
function checkProblem(dir: string, check: ToolCheck | undefined): string | undefined {
  if (!check) return undefined;
  const command = `\`${[check.bin, ...check.args].join(" ")}\``;
  try {
    const ran = Bun.spawnSync([binOf(dir, check.bin), ...check.args], {
      stdout: "pipe",
      stderr: "pipe",
      timeout: 60_000,
    });
    if (ran.exitCode === 0) return undefined;
    const said = ran.stderr.toString().trim().split("\n").at(-1);
    return `the installed ${check.bin} does not run (${command} exited ${ran.exitCode ?? ran.signalCode}${said ? `: ${said}` : ""})`;
  } catch (error) {
    // A truncated executable, or none: the system refuses to start it.
    return `the installed ${check.bin} does not run (${command}: ${(error as Error).message})`;
  }
}

function stampOf(prefix: string): string | undefined {
  const file = join(prefix, STAMP);
  return existsSync(file) ? readFileSync(file, "utf8").trim() : undefined;
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
 * The pinned node-<os>-<arch> package, when the node on PATH is missing or older than Node 22.19 (then
 * ensureNode22 installs it); undefined when the one on PATH will do.
 */
export function node22Package(): { name: string; version: string } | undefined {
  const onPath = Bun.which("node");
  if (onPath && recentEnough(Bun.spawnSync([onPath, "--version"]).stdout.toString())) return undefined;
  const arch = process.arch === "x64" || process.arch === "arm64" ? process.arch : undefined;
  const os = process.platform === "linux" || process.platform === "darwin" ? process.platform : undefined;
  if (!arch || !os)
    throw new Error(`no Node 22 package for ${process.platform}-${process.arch}; put Node >= 22.19 on PATH`);
  return { name: `node-${os}-${arch}`, version: PINNED.node.version };
}

/**
 * A Node >= 22.19: the one on PATH when recent enough, else the pinned
 * node-<os>-<arch> package from the npm registry.
 */
export function ensureNode22(): string {
  const pkg = node22Package();
  if (!pkg) return Bun.which("node") as string;
  const dir = ensureNpmTool(pkg.name, pkg.version, { check: PINNED.node.check });
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

/** Every pinned tool, and Node 22 when the system's is older. */
const PINNED_TOOLS = Object.values(PINNED).filter((tool) => "name" in tool);

// `make npm-tools`: install them all now (make conformance and make clients would, one at a time, on first use).
if (import.meta.main) {
  try {
    const node = ensureNode22();
    for (const tool of PINNED_TOOLS) ensureNpmTool(tool.name, tool.version);
    process.stderr.write(
      `pinned npm tools in .tools/npm: ${PINNED_TOOLS.map((t) => `${t.name}@${t.version}`).join(", ")} (Node ${Bun.spawnSync([node, "--version"]).stdout.toString().trim()})\n`,
    );
  } catch (error) {
    process.stderr.write(`make npm-tools: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
