import { afterAll, describe, expect, test } from "bun:test";
import { dirname } from "node:path";
import { binOf, ensureNode22, ensureNpmTool, PINNED } from "../../scripts/npm-tools.ts";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { haproxyBinary } from "../helpers/haproxy.ts";
import { startHttpBinary } from "../helpers/http-binary.ts";
import { eventually } from "../helpers/hub.ts";
import { runsHere } from "../helpers/runs-here.ts";
import { sharedHub } from "./shared-hub.ts";

/**
 * A real MCP client, the MCP Inspector CLI (pinned, Node 22), against the
 * compiled binary over Streamable HTTP, over stdio, and through haproxy in
 * front of two replicas (the shared hub of test/e2e/shared-hub.test.ts). It
 * needs the npm registry the first time, so it runs under `make conformance`
 * (SKILLHUB_NPM_TOOLS=1), not in every `bun test`.
 */
const enabled = runsHere(
  process.env.SKILLHUB_NPM_TOOLS === "1",
  "the MCP Inspector CLI tests",
  "they run under make conformance (SKILLHUB_NPM_TOOLS=1)",
);
/** The shared hub needs Debian's haproxy (.ci/run installs it). */
const withHaproxy =
  enabled &&
  runsHere(
    haproxyBinary() !== undefined,
    "the MCP Inspector through haproxy",
    "haproxy is not installed (apt-get install haproxy; .ci/run does)",
  );
afterAll(cleanupTemp);

describe.skipIf(!enabled)("MCP Inspector CLI over Streamable HTTP", () => {
  test("--cli URL --method tools/list (strict schema checks) and tools/call, with a bearer token", async () => {
    const node = ensureNode22();
    const inspector = binOf(ensureNpmTool(PINNED.inspector.name, PINNED.inspector.version), "mcp-inspector");
    const home = tempDir("skillhub-inspector-home-");
    const skills = tempDir("skillhub-inspector-skills-");
    writeSkill(skills, "git-helper", { description: "Git workflow helper" });
    const token = "inspector-token-0123456789abcdef";
    const env = { PATH: `${dirname(node)}:${process.env.PATH ?? ""}`, HOME: home };
    const server = await startHttpBinary(binary(), ["--skills-dir", skills, "--no-watch"], {
      env: { ...env, SKILLHUB_HTTP_TOKEN: token },
    });
    try {
      const run = (args: string[]) => {
        const proc = Bun.spawnSync(
          [
            node,
            inspector,
            "--cli",
            server.url,
            "--transport",
            "http",
            "--header",
            `Authorization: Bearer ${token}`,
            ...args,
          ],
          { env, cwd: home },
        );
        return { code: proc.exitCode, out: proc.stdout.toString(), err: proc.stderr.toString() };
      };
      // --strict exits non-zero on tool-schema portability errors (warnings are printed only).
      const list = run(["--method", "tools/list", "--strict"]);
      expect(list.code, list.err).toBe(0);
      const tools = (JSON.parse(list.out) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
      expect(tools).toContain("skill");
      const call = run(["--method", "tools/call", "--tool-name", "skill", "--tool-arg", "name=git-helper"]);
      expect(call.code, call.err).toBe(0);
      expect(call.out).toContain("Loading: git-helper");
      const unauthorized = Bun.spawnSync(
        [node, inspector, "--cli", server.url, "--transport", "http", "--method", "tools/list"],
        { env, cwd: home },
      );
      expect(unauthorized.exitCode).not.toBe(0);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 180_000);

  test("over stdio: --method skills/list --verify finds the skills extension and verifies every entry", () => {
    const node = ensureNode22();
    const inspector = binOf(ensureNpmTool(PINNED.inspector.name, PINNED.inspector.version), "mcp-inspector");
    const home = tempDir("skillhub-inspector-home-");
    const skills = tempDir("skillhub-inspector-skills-");
    writeSkill(skills, "git-helper", { description: "Git workflow helper" });
    writeSkill(skills, "pdf-tools", { description: "Work with PDF files" });
    const env = { PATH: `${dirname(node)}:${process.env.PATH ?? ""}`, HOME: home };
    const proc = Bun.spawnSync(
      [
        node,
        inspector,
        "--cli",
        "-e",
        `SKILLS_DIR=${skills}`,
        "-e",
        `HOME=${home}`,
        binary(),
        "--method",
        "skills/list",
        "--verify",
      ],
      { env, cwd: home },
    );
    const out = proc.stdout.toString();
    expect(proc.exitCode, `${out}\n${proc.stderr.toString()}`).toBe(0);
    expect(out).toContain("skill://git-helper/SKILL.md");
    expect(out).toContain("skill://pdf-tools/SKILL.md");
  }, 180_000);

  test.skipIf(!withHaproxy)(
    "through haproxy in front of two replicas: tools, a call, a resource",
    async () => {
      const node = ensureNode22();
      const inspector = binOf(ensureNpmTool(PINNED.inspector.name, PINNED.inspector.version), "mcp-inspector");
      const hub = await sharedHub("sticky sessions");
      try {
        const run = (args: string[]) => {
          const proc = Bun.spawnSync([node, inspector, "--cli", hub.balancer.url, "--transport", "http", ...args], {
            env: { PATH: `${dirname(node)}:${process.env.PATH ?? ""}`, HOME: tempDir("skillhub-inspector-home-") },
          });
          expect(proc.exitCode, proc.stderr.toString()).toBe(0);
          return proc.stdout.toString();
        };
        for (let i = 0; i < 2; i++) expect(run(["--method", "tools/list"])).toContain('"read_skill_file"');
        expect(run(["--method", "tools/call", "--tool-name", "skill", "--tool-arg", "name=pdf-invoice"])).toContain(
          "Base directory: skill://pdf-invoice",
        );
        expect(run(["--method", "resources/read", "--uri", "skill://pdf-invoice/scripts/extract.py"])).toContain(
          "totals: 42",
        );
        // Each run is a new session (initialize, round robin): both replicas answered some (their logs arrive on their own time).
        await eventually(() => hub.hits().every((n) => n > 0));
      } finally {
        await hub.stop();
      }
    },
    180_000,
  );
});
