/**
 * `make conformance`: run the MCP conformance suite against the compiled binary
 * over Streamable HTTP, then the MCP Inspector CLI test. Exit 0 only when every
 * scenario passes except those in test/conformance/expected-failures.yml, and
 * the scenarios a tools server must pass did pass.
 * Usage: bun scripts/conformance.ts [--verbose]
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary } from "../test/helpers/binary.ts";
import { startHttpBinary } from "../test/helpers/http-binary.ts";
import { binOf, ensureNode22, ensureNpmTool, PINNED } from "./npm-tools.ts";

const ROOT = join(import.meta.dir, "..");
const EXPECTED = join(ROOT, "test", "conformance", "expected-failures.yml");
/** Scenarios that apply to a tools server: never allowed in the expected failures. */
const REQUIRED = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection", "server-sse-multiple-streams"];

const node = ensureNode22();
const suite = binOf(ensureNpmTool(PINNED.conformance.name, PINNED.conformance.version), "conformance");
const expected = readFileSync(EXPECTED, "utf8");
const listedRequired = REQUIRED.filter((s) => new RegExp(`^\\s*-\\s*${s}\\b`, "m").test(expected));
if (listedRequired.length > 0) fail(`${EXPECTED} lists scenarios that must pass: ${listedRequired.join(", ")}`);

const home = mkdtempSync(join(tmpdir(), "skillhub-conformance-"));
const out = join(home, "results");
const server = await startHttpBinary(binary(), ["--skills-dir", join(ROOT, "skills-example"), "--no-watch"], {
  env: { PATH: process.env.PATH ?? "", HOME: home, LOG_LEVEL: "WARN" },
  logLevel: "INFO",
  cwd: home,
});
let code = 1;
try {
  process.stderr.write(
    `conformance ${PINNED.conformance.version} (Node ${Bun.spawnSync([node, "--version"]).stdout.toString().trim()}) against ${server.url}\n`,
  );
  const run = Bun.spawn(
    [
      node,
      suite,
      "server",
      "--url",
      server.url,
      "--expected-failures",
      EXPECTED,
      "-o",
      out,
      ...(process.argv.includes("--verbose") ? ["--verbose"] : []),
    ],
    {
      stdout: "inherit",
      stderr: "inherit",
      cwd: home,
    },
  );
  code = await run.exited;
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
process.stderr.write(`required scenarios passed: ${REQUIRED.join(", ")}\n\nMCP Inspector CLI:\n`);

const inspector = Bun.spawnSync([process.execPath, "test", "./test/e2e/inspector.test.ts"], {
  cwd: ROOT,
  env: { ...process.env, SKILLHUB_NPM_TOOLS: "1" },
  stdout: "inherit",
  stderr: "inherit",
});
process.exit(inspector.exitCode ?? 1);

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
