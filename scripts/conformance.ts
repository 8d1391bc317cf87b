/**
 * `make conformance`: run the MCP conformance suite (pinned) against the
 * compiled binary over Streamable HTTP, scenario by scenario, for every
 * scenario that applies to a skills server (SCENARIOS), on the real skills in
 * ../shared/corpora when present (skills-example otherwise), then the MCP
 * Inspector CLI test (over HTTP, `skills/list --verify` over stdio, and through
 * haproxy to two replicas) and what reaches Claude Code's model.
 * Exit 0 only when every scenario passes except those listed in
 * test/conformance/expected-failures.yml, and the required ones did pass.
 * Usage: bun scripts/conformance.ts [--verbose]
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary } from "../test/helpers/binary.ts";
import { startHttpBinary } from "../test/helpers/http-binary.ts";
import { binOf, ensureNode22, ensureNpmTool, PINNED } from "./npm-tools.ts";
import { parallelFlags } from "./test-jobs.ts";

const ROOT = join(import.meta.dir, "..");
const EXPECTED = join(ROOT, "test", "conformance", "expected-failures.yml");
/** Scenarios that apply to a tools server: never allowed in the expected failures. */
const REQUIRED = [
  "server-initialize",
  "ping",
  "tools-list",
  "dns-rebinding-protection",
  "server-sse-multiple-streams",
  "http-header-validation",
  "caching",
  "resources-list",
  "sep-2164-resource-not-found",
];
/**
 * Every scenario that applies to a skills server: the 2025 ones, the 2026-07-28 ones, and the skills
 * extension's. Left out: fixture-tool scenarios (test_* tools), tasks and input_required (a skills
 * server asks the client nothing), and custom-header tools (no tool declares x-mcp-header).
 */
const SCENARIOS = [
  ...REQUIRED,
  "server-session-lifecycle",
  "server-stateless",
  "json-schema-2020-12",
  "server-sse-polling",
  "resources-read-text",
  "prompts-list",
  "sep-2640-skills-enumeration",
  "sep-2640-skills-manifest",
  "sep-2640-skills-directory",
];
/** Real skills when the shared corpora are here; the example skills otherwise. */
const CORPORA = join(ROOT, "..", "shared", "corpora");
const SKILL_DIRS = existsSync(CORPORA)
  ? readdirSync(CORPORA, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(CORPORA, d.name))
  : [join(ROOT, "skills-example")];

const node = ensureNode22();
const suite = binOf(ensureNpmTool(PINNED.conformance.name, PINNED.conformance.version), "conformance");
const expected = readFileSync(EXPECTED, "utf8");
const listedRequired = REQUIRED.filter((s) => new RegExp(`^\\s*-\\s*${s}\\b`, "m").test(expected));
if (listedRequired.length > 0) fail(`${EXPECTED} lists scenarios that must pass: ${listedRequired.join(", ")}`);

const home = mkdtempSync(join(tmpdir(), "skillhub-conformance-"));
// Failures marked [example-only] happen only on skills-example, [corpora-only] only on the corpora.
const expectedFile = join(home, "expected-failures.yml");
writeFileSync(
  expectedFile,
  expected
    .split("\n")
    .filter((l) => !l.includes(existsSync(CORPORA) ? "[example-only]" : "[corpora-only]"))
    .join("\n"),
);
const out = join(home, "results");
const server = await startHttpBinary(binary(), [...SKILL_DIRS.flatMap((d) => ["--skills-dir", d]), "--no-watch"], {
  env: { PATH: process.env.PATH ?? "", HOME: home, LOG_LEVEL: "WARN" },
  logLevel: "INFO",
  cwd: home,
});
let code = 1;
try {
  process.stderr.write(
    `conformance ${PINNED.conformance.version} (Node ${Bun.spawnSync([node, "--version"]).stdout.toString().trim()}) against ${server.url}\n`,
  );
  process.stderr.write(`skills from: ${SKILL_DIRS.join(", ")}\n`);
  code = 0;
  // Scenarios run TEST_JOBS at a time, each its own client of the one server; each one's output is printed
  // whole, in the list's order.
  const inLane = lanes(Math.max(1, Number(process.env.TEST_JOBS ?? 2) || 1));
  const runs = SCENARIOS.map((scenario) => inLane(() => runScenario(scenario)));
  for (const [i, scenario] of SCENARIOS.entries()) {
    const { exit, output } = await (runs[i] as (typeof runs)[number]);
    process.stdout.write(output);
    if (exit !== 0) {
      process.stderr.write(`scenario ${scenario}: exit ${exit}\n`);
      code = 1;
    }
  }
  const failed = REQUIRED.filter((s) => !scenarioPassed(out, s));
  if (failed.length > 0) {
    process.stderr.write(`required scenarios did not pass: ${failed.join(", ")}\n`);
    code = 1;
  }
} finally {
  const exit = await server.stop();
  if (exit !== 0) {
    process.stderr.write(`skillhub exited ${exit} on SIGTERM; its stderr:\n${server.stderr()}\n`);
    code = 1;
  }
  rmSync(home, { recursive: true, force: true });
}
if (code !== 0) fail("conformance failed");
process.stderr.write(
  `required scenarios passed: ${REQUIRED.join(", ")}\n\nMCP Inspector CLI (over stdio and HTTP, and through haproxy to two replicas), Claude Code's CLI:\n`,
);

// The clients nobody here wrote, with the pinned npm tools installed: the Inspector through haproxy skips
// itself, saying so, where haproxy is not installed. (The SDK client and the page through haproxy, with no npm
// tool, are make test's: test/e2e/shared-hub.test.ts.)
const clients = Bun.spawnSync(
  [
    process.execPath,
    "test",
    "--timeout",
    "240000",
    ...parallelFlags(),
    "./test/e2e/inspector.test.ts",
    "./test/e2e/claude-code-results.test.ts",
  ],
  { cwd: ROOT, env: { ...process.env, SKILLHUB_NPM_TOOLS: "1" }, stdout: "inherit", stderr: "inherit" },
);
process.exit(clients.exitCode ?? 1);

/** One scenario against the server: the suite's exit code and its output (stdout, then stderr). */
async function runScenario(scenario: string): Promise<{ exit: number; output: string }> {
  const run = Bun.spawn(
    [
      node,
      suite,
      "server",
      "--url",
      server.url,
      "--scenario",
      scenario,
      "--expected-failures",
      expectedFile,
      "-o",
      out,
      ...(process.argv.includes("--verbose") ? ["--verbose"] : []),
    ],
    { stdout: "pipe", stderr: "pipe", cwd: home },
  );
  const [exit, stdout, stderr] = await Promise.all([
    run.exited,
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
  ]);
  return { exit, output: stdout + stderr };
}

/** Runs what it is given at most `n` at a time, the others waiting their turn in order. */
function lanes(n: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (running >= n) await new Promise<void>((start) => waiting.push(start));
    running++;
    try {
      return await work();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** Whether every check of a scenario's latest run succeeded (results/server-<name>-<time>/checks.json). */
function scenarioPassed(dir: string, scenario: string): boolean {
  if (!existsSync(dir)) return false;
  const runs = readdirSync(dir).filter(
    (d) => d.startsWith(`server-${scenario}-`) && /-\d{4}-\d{2}-\d{2}T/.test(d.slice(`server-${scenario}`.length)),
  );
  const latest = runs.sort().at(-1);
  if (!latest) return false;
  const checks = JSON.parse(readFileSync(join(dir, latest, "checks.json"), "utf8")) as Array<{ status: string }>;
  return checks.length > 0 && checks.every((c) => c.status === "SUCCESS" || c.status === "INFO");
}

function fail(message: string): never {
  process.stderr.write(`make conformance: ${message}\n`);
  process.exit(1);
}
