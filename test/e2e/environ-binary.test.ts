import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { writeNode } from "../helpers/tree.ts";

// A script reads /proc/<server pid>/environ (the server's *initial* environment,
// which deleting from process.env does not change) and its own environment: no secret in either.

afterAll(cleanupTemp);

const SECRETS = {
  GITHUB_TOKEN: "ghp_environ_canary_0001",
  SKILLHUB_HTTP_TOKEN: "http_environ_canary_0002",
  PIP_INDEX_URL: "https://user:pip_environ_canary_0003@pypi.example.com/simple",
  DATABASE_URL: "postgres://app:db_environ_canary_0004@db/x",
};

describe.skipIf(process.platform !== "linux")("the server's environment, as a child sees it", () => {
  test("/proc/<server pid>/environ and the script's own environment hold no secret", async () => {
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
      'echo "server=$PPID"; tr "\\0" "\\n" < /proc/$PPID/environ; echo "--- own"; env\n',
    );
    const home = tempDir("skillhub-environ-home-");
    const transport = new StdioClientTransport({
      command: binary(),
      args: ["--skills-dir", skills, "--no-watch"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ...SECRETS },
      cwd: home,
      stderr: "pipe",
    });
    const client = new Client({ name: "e2e-environ", version: "1.0.0" });
    await client.connect(transport);
    try {
      const result = (await client.callTool({
        name: "run_script",
        arguments: { skill_path: "probe", file: "scripts/env.sh", args: {} },
      })) as CallToolResult;
      const out = (result.structuredContent as { stdout?: string } | undefined)?.stdout ?? JSON.stringify(result);
      // The script really read the server's block (not an empty or unreadable file).
      expect(out).toContain("HOME=");
      expect(out).toContain("GITHUB_TOKEN=*");
      expect(out).toContain("--- own");
      for (const value of Object.values(SECRETS)) expect(out).not.toContain(value);
      for (const part of ["pip_environ_canary_0003", "db_environ_canary_0004"]) expect(out).not.toContain(part);
    } finally {
      await client.close();
    }
  });
});
