import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, write, writeSkill } from "../helpers/fs.ts";
import { eventually } from "../helpers/wait.ts";
import { machine } from "./cli.ts";

afterAll(cleanupTemp);

describe("the compiled binary: lock, verify, and a frozen stdio server", () => {
  test("verify exits 1 naming the tampered file; the frozen server refuses it over stdio", async () => {
    const bin = binary();
    const m = machine();
    writeSkill(m.skills, "pdf");
    writeSkill(m.skills, "docx");
    const env = { PATH: process.env.PATH ?? "", HOME: m.home };
    const runBin = (args: string[]) => {
      const p = Bun.spawnSync([bin, ...args, "--project", m.project], { env, cwd: m.project });
      return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
    };
    expect(runBin(["lock"]).code).toBe(0);
    expect(runBin(["verify"]).code).toBe(0);
    write(join(m.skills, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: Changed.\n---\n\nNew body.\n");
    const bad = runBin(["verify"]);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain("changed skill project:pdf file SKILL.md: sha256:");

    const transport = new StdioClientTransport({
      command: bin,
      args: ["--frozen", "--project", m.project, "--no-watch"],
      env,
      cwd: m.project,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk) => void (stderr += String(chunk)));
    const client = new Client({ name: "e2e-lock", version: "1.0.0" });
    await client.connect(transport);
    try {
      const call = (name: string, args: Record<string, unknown>) =>
        client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
      const refused = await call("load_skill", { skill_name: "pdf" });
      expect(refused.isError).toBe(true);
      expect((refused.structuredContent as { error: { code: string } }).error.code).toBe("SKILL_LOCK_MISMATCH");
      expect((await call("load_skill", { skill_name: "docx" })).isError).toBeFalsy();
      await eventually(() => stderr.includes("frozen: refused project:pdf"));
    } finally {
      await client.close();
    }
  }, 120_000);
});
