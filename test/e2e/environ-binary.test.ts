import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { runsHere } from "../helpers/runs-here.ts";
import { writeNode } from "../helpers/tree.ts";

// A script reads /proc/<server pid>/environ (the server's *initial* environment,
// which deleting from process.env does not change) and its own environment: no secret in either.
// Nor can it look into the server itself: its memory (where the secrets are kept) and its descriptors
// (its stdout, where a forged answer would reach the client).

afterAll(cleanupTemp);

const SECRETS = {
  GITHUB_TOKEN: "ghp_environ_canary_0001",
  SKILLHUB_HTTP_TOKEN: "http_environ_canary_0002",
  PIP_INDEX_URL: "https://user:pip_environ_canary_0003@pypi.example.com/simple",
  DATABASE_URL: "postgres://app:db_environ_canary_0004@db/x",
  // SkillHub's own URLs (one holds a key in its query), and credentials named *_PAT and *_PASS.
  EMBEDDING_BASE_URL: "http://127.0.0.1:9/v1?api_key=embedding_environ_canary_0005",
  GH_PAT: "gh_pat_environ_canary_0006",
  DOCKER_PASS: "docker_environ_canary_0007",
};

/**
 * The binary's command line as a process of its user without CAP_SYS_PTRACE (which looks into any process):
 * as it is for any user but root; for root, started through setpriv without it. Undefined where neither can be.
 */
function unprivileged(): string[] | undefined {
  if (process.platform !== "linux") return undefined;
  if (process.getuid?.() !== 0) return [binary()];
  const setpriv = Bun.which("setpriv");
  if (!setpriv) return undefined;
  return [setpriv, "--bounding-set", "-sys_ptrace", "--inh-caps", "-sys_ptrace", binary()];
}
const UNPRIVILEGED = unprivileged();
runsHere(UNPRIVILEGED !== undefined, "the server's memory test", "not Linux, or running as root without setpriv");

/** A skills folder whose server script prints /proc/<server pid>/environ, then its own environment. */
function environProbe(): string {
  const skills = tempDir("skillhub-environ-");
  writeNode(skills, "probe.md", {
    keywords: ["probe"],
    extra: [
      "scripts:",
      "  - file: scripts/env.sh",
      "    description: Dumps environments",
      "    execution: server",
    ].join("\n"),
  });
  write(
    join(skills, "probe/scripts/env.sh"),
    'echo "server=$PPID"; tr "\\0" "\\n" < /proc/$PPID/environ || echo "environ refused"; echo "--- own"; env\n',
  );
  return skills;
}

/** Run the probe through `client`: no secret in what it printed. */
async function expectNoSecretSeen(client: Client): Promise<void> {
  const result = (await client.callTool({
    name: "run_script",
    arguments: { skill_path: "probe", file: "scripts/env.sh", args: {} },
  })) as CallToolResult;
  const out = (result.structuredContent as { stdout?: string } | undefined)?.stdout ?? JSON.stringify(result);
  // The script really read the server's block (not an empty file), or was refused it (not root).
  if (!out.includes("environ refused")) {
    expect(out).toContain("HOME=");
    for (const name of ["GITHUB_TOKEN", "EMBEDDING_BASE_URL", "GH_PAT", "DOCKER_PASS"])
      expect(out).toContain(`${name}=*`);
  }
  expect(out).toContain("--- own");
  for (const value of Object.values(SECRETS)) expect(out).not.toContain(value);
  for (const part of ["pip_environ_canary_0003", "db_environ_canary_0004", "embedding_environ_canary_0005"])
    expect(out).not.toContain(part);
}

describe.skipIf(process.platform !== "linux")("the server's environment, as a child sees it", () => {
  test("/proc/<server pid>/environ and the script's own environment hold no secret", async () => {
    const home = tempDir("skillhub-environ-home-");
    const transport = new StdioClientTransport({
      command: binary(),
      args: ["--skills-dir", environProbe(), "--no-watch"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ...SECRETS },
      cwd: home,
      stderr: "pipe",
    });
    const client = new Client({ name: "e2e-environ", version: "1.0.0" });
    await client.connect(transport);
    try {
      await expectNoSecretSeen(client);
    } finally {
      await client.close();
    }
  });

  test("the same through the MCP endpoint of `skillhub ui`", async () => {
    const home = tempDir("skillhub-environ-home-");
    const proc = Bun.spawn([binary(), "ui", "--skills-dir", environProbe(), "--no-watch"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ...SECRETS },
      cwd: home,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
    });
    try {
      const reader = proc.stdout.getReader();
      let out = "";
      while (!out.includes("\n")) {
        const { done, value } = await reader.read();
        if (done) break;
        out += new TextDecoder().decode(value);
      }
      const page = /^SkillHub page: (\S+)$/m.exec(out)?.[1] as string;
      const client = new Client({ name: "e2e-environ", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${page}mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${SECRETS.SKILLHUB_HTTP_TOKEN}` } },
        }),
      );
      await expectNoSecretSeen(client);
      await client.close();
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  });

  test.skipIf(!UNPRIVILEGED)(
    "a script can neither open the server's memory nor take its descriptors (its stdout to the client)",
    async () => {
      const skills = tempDir("skillhub-environ-");
      writeNode(skills, "probe.md", {
        keywords: ["probe"],
        extra: ["scripts:", "  - file: scripts/look.sh", "    description: Looks", "    execution: server"].join("\n"),
      });
      // Opening /proc/<pid>/mem asks what reading the memory or copying a descriptor (pidfd_getfd) asks.
      write(
        join(skills, "probe/scripts/look.sh"),
        [
          'if ( : < "/proc/$PPID/mem" ) 2>/dev/null; then echo "memory: open"; else echo "memory: closed"; fi',
          'if readlink "/proc/$PPID/fd/1" >/dev/null 2>&1; then echo "stdout: open"; else echo "stdout: closed"; fi',
        ].join("\n"),
      );
      const home = tempDir("skillhub-environ-home-");
      const transport = new StdioClientTransport({
        command: UNPRIVILEGED?.[0] as string,
        args: [...(UNPRIVILEGED?.slice(1) ?? []), "--skills-dir", skills, "--no-watch"],
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GITHUB_TOKEN: SECRETS.GITHUB_TOKEN },
        cwd: home,
        stderr: "pipe",
      });
      const client = new Client({ name: "e2e-environ", version: "1.0.0" });
      await client.connect(transport);
      try {
        const result = (await client.callTool({
          name: "run_script",
          arguments: { skill_path: "probe", file: "scripts/look.sh", args: {} },
        })) as CallToolResult;
        expect((result.structuredContent as { stdout?: string } | undefined)?.stdout).toBe(
          "memory: closed\nstdout: closed\n",
        );
      } finally {
        await client.close();
      }
    },
  );
});
