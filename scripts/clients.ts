/**
 * `make client-tools` installs the real MCP clients (Claude Code, Gemini CLI, Codex), the MCP Bundle
 * CLI and mcp-remote (Claude Desktop's bridge to HTTP), pinned in npm-tools.ts, with Node 22 when the
 * system's is older, into .tools/ (never system-wide). `make clients` then runs test/clients/ with
 * them: every `print-config` snippet read by its client from the client's own config file (stdio, and
 * HTTP with a token; Claude Desktop's HTTP snippet through mcp-remote, started as the snippet says),
 * the Claude Code plugin and marketplace, the Gemini extension and the release's MCP Bundles.
 * When a tool is missing and the npm registry cannot be reached, both say so and skip (exit 0).
 * Usage: bun scripts/clients.ts [--install-only]
 */
import { join } from "node:path";
import { ensureNode22, ensureNpmTool, node22Package, npmToolInstalled, PINNED } from "./npm-tools.ts";
import { parallelFlags } from "./test-jobs.ts";

const ROOT = join(import.meta.dir, "..");
const TOOLS = [PINNED.mcpb, PINNED.claudeCode, PINNED.geminiCli, PINNED.codex, PINNED.mcpRemote];

/** Why the registry cannot be used, or undefined when `npm ping` answers. */
function registryProblem(): string | undefined {
  const ping = Bun.spawnSync(["npm", "ping", "--fetch-timeout=15000", "--fetch-retries=0"], {
    stdout: "pipe",
    stderr: "pipe",
    timeout: 60_000,
  });
  if (ping.exitCode === 0) return undefined;
  const lines = `${ping.stderr.toString()}${ping.stdout.toString()}`.trim().split("\n");
  // npm ends with where its log is; the reason is the failed request's line, or the error code.
  const said =
    lines.find((l) => / failed, reason: /.test(l)) ?? lines.find((l) => /^npm error code /.test(l)) ?? lines.at(-1);
  return said?.replace(/^npm error (FetchError: )?/, "") || `npm ping exited ${ping.exitCode}`;
}

/** Node 22 too, when it comes from .tools/ (the system's is older): without it no client runs. */
function nodeTool(): { name: string; version: string }[] {
  try {
    const pkg = node22Package();
    return pkg ? [pkg] : [];
  } catch {
    return []; // no package for this platform: ensureNode22 says so below
  }
}

const missing = [...TOOLS, ...nodeTool()].filter((t) => !npmToolInstalled(t.name, t.version));
if (missing.length > 0) {
  const problem = registryProblem();
  if (problem) {
    process.stderr.write(
      `make clients: skipped, the npm registry cannot be reached (${problem}), and ${missing.map((t) => `${t.name}@${t.version}`).join(", ")} ${missing.length === 1 ? "is" : "are"} not in .tools/ yet; the real-client checks did not run.\n`,
    );
    process.exit(0);
  }
}
try {
  const node = ensureNode22();
  for (const tool of TOOLS) ensureNpmTool(tool.name, tool.version);
  process.stderr.write(
    `client tools in .tools/npm: ${TOOLS.map((t) => `${t.name}@${t.version}`).join(", ")} (Node ${Bun.spawnSync([node, "--version"]).stdout.toString().trim()})\n`,
  );
} catch (error) {
  process.stderr.write(`make clients: ${(error as Error).message}\n`);
  process.exit(1);
}
if (process.argv.includes("--install-only")) process.exit(0);

const run = Bun.spawnSync([process.execPath, "test", "--timeout", "180000", ...parallelFlags(), "./test/clients/"], {
  cwd: ROOT,
  env: { ...process.env, SKILLHUB_CLIENT_TOOLS: "1" },
  stdout: "inherit",
  stderr: "inherit",
});
process.exit(run.exitCode ?? 1);
