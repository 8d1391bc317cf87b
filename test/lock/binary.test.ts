import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { z } from "zod";
import { ownFileReads, swapForSpecials } from "../../bench/fuzz/frozen-cases.ts";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { eventually, HANG_MS } from "../helpers/wait.ts";
import { type Machine, machine } from "./cli.ts";
import { decoy, leaked, linkedTree } from "./decoys.ts";

afterAll(cleanupTemp);

/** An SDK client over stdio on the binary serving `m`'s project frozen, without a watcher; `stderr()` so far. */
async function frozenClient(bin: string, m: Machine, env: Record<string, string>, more: string[] = []) {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["--frozen", "--project", m.project, "--no-watch", ...more],
    env,
    cwd: m.project,
    stderr: "pipe",
  });
  let log = "";
  transport.stderr?.on("data", (chunk) => void (log += String(chunk)));
  const client = new Client({ name: "e2e-lock", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => log };
}

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

    const { client, stderr } = await frozenClient(bin, m, env);
    try {
      const call = (name: string, args: Record<string, unknown>) =>
        client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
      const refused = await call("load_skill", { skill_name: "pdf" });
      expect(refused.isError).toBe(true);
      expect((refused.structuredContent as { error: { code: string } }).error.code).toBe("SKILL_LOCK_MISMATCH");
      expect((await call("load_skill", { skill_name: "docx" })).isError).toBeFalsy();
      await eventually(() => stderr().includes("frozen: refused project:pdf"));
      // No personal skill, so no personal lock is needed: none is asked for.
      expect(stderr()).not.toContain("frozen mode: no lock");
    } finally {
      await client.close();
    }
  }, 120_000);

  test("frozen with your own lock only (a project that serves nothing): it starts; a project skill is refused", async () => {
    const bin = binary();
    const m = machine();
    const ext = tempDir("skillhub-lock-ext-");
    writeSkill(ext, "alpha");
    const env = { PATH: process.env.PATH ?? "", HOME: m.home };
    const runBin = (args: string[]) => Bun.spawnSync([bin, ...args, "--project", m.project], { env, cwd: m.project });
    // The --skills-dir folder lies outside the project: `lock` writes your own lock, and none in the project.
    expect(runBin(["lock", "--skills-dir", ext]).exitCode).toBe(0);
    expect(existsSync(m.lock)).toBe(false);
    writeSkill(m.skills, "beta");
    const { client, stderr } = await frozenClient(bin, m, env, ["--skills-dir", ext]);
    try {
      const call = (name: string, args: Record<string, unknown>) =>
        client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
      expect((await call("load_skill", { skill_name: "alpha" })).isError).toBeFalsy();
      const refused = await call("load_skill", { skill_name: "beta" });
      expect((refused.structuredContent as { error: { code: string } }).error.code).toBe("LOCK_UNAVAILABLE");
      await eventually(() => stderr().includes(`frozen mode: no lock at ${m.lock}, so 1 skill is refused`));
    } finally {
      await client.close();
    }
    // No lock anywhere: it does not start.
    rmSync(join(m.home, ".skillhub", "skillhub.lock"));
    const none = runBin(["--frozen", "--skills-dir", ext]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr.toString()).toContain(`no lock at ${m.lock}`);
  }, 120_000);

  test("frozen, a SKILL.md swapped for a FIFO, a link to one or a device never blocks: the call is refused, ping answers", async () => {
    const bin = binary();
    const m = machine();
    for (const name of ["fifo", "linked", "device", "fine"]) writeSkill(m.skills, name);
    const env = { PATH: process.env.PATH ?? "", HOME: m.home };
    expect(Bun.spawnSync([bin, "lock", "--project", m.project], { env, cwd: m.project }).exitCode).toBe(0);
    const { client } = await frozenClient(bin, m, env);
    try {
      // Swapped after the scan.
      swapForSpecials(m.skills, m.project);
      const limit = { timeout: HANG_MS };
      for (const name of ["fifo", "linked", "device"]) {
        for (const [tool, args] of ownFileReads(name)) {
          const result = (await client.callTool({ name: tool, arguments: args }, limit)) as CallToolResult;
          expect({ name, tool, isError: result.isError }).toEqual({ name, tool, isError: true });
        }
        expect(await client.ping(limit)).toEqual({});
      }
      await client.request({ method: "skills/list", params: {} } as never, z.looseObject({}) as never, limit);
      const fine = (await client.callTool({ name: "skill", arguments: { name: "fine" } }, limit)) as CallToolResult;
      expect(fine.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  }, 180_000);

  test("verify and a frozen server refuse a lock that is a FIFO or a link to a device, at once (exit 2)", async () => {
    const bin = binary();
    const m = machine();
    writeSkill(m.skills, "pdf");
    const env = { PATH: process.env.PATH ?? "", HOME: m.home };
    const runBin = async (args: string[]) => {
      const p = Bun.spawn([bin, ...args, "--project", m.project], {
        env,
        cwd: m.project,
        stdout: "pipe",
        stderr: "pipe",
      });
      // A generous bound that only a hang reaches: the process is then ended and the test fails.
      const ended = await Promise.race([p.exited, Bun.sleep(HANG_MS).then(() => "hang" as const)]);
      if (ended === "hang") p.kill("SIGKILL");
      return { code: ended, err: await new Response(p.stderr).text() };
    };
    Bun.spawnSync(["mkfifo", m.lock]);
    for (const args of [["verify"], ["serve", "--frozen"]]) {
      const r = await runBin(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.err).toContain("NOT_A_REGULAR_FILE");
    }
    rmSync(m.lock);
    symlinkSync("/dev/zero", m.lock);
    const zero = await runBin(["verify"]);
    expect(zero.code).toBe(2);
    expect(zero.err).toContain("cannot read");
  }, 180_000);

  test("a project whose tree node's resource folder links out: the lock holds no name or digest of its files; verify and the frozen server pass", async () => {
    const bin = binary();
    const m = machine();
    const outside = decoy();
    linkedTree(m.skills, outside);
    const env = { PATH: process.env.PATH ?? "", HOME: m.home };
    const runBin = (args: string[]) => {
      const p = Bun.spawnSync([bin, ...args, "--project", m.project], { env, cwd: m.project });
      return { code: p.exitCode, text: p.stdout.toString() + p.stderr.toString() };
    };
    const locked = runBin(["lock"]);
    expect(locked.code).toBe(0);
    const text = readFileSync(m.lock, "utf8");
    expect(leaked(text + locked.text, outside.leaks)).toEqual([]);
    expect(JSON.parse(text).skills["project:tree/x"].files).toEqual({});
    expect(runBin(["verify"]).code).toBe(0);

    const { client } = await frozenClient(bin, m, env);
    try {
      const call = (name: string, args: Record<string, unknown>) =>
        client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
      const routed = await call("get_skill", { context: "deploy keys" });
      expect(routed.structuredContent).toMatchObject({ skill_path: "tree/x", assets: [] });
      const asset = await call("get_asset", { skill_path: "tree/x", file: "id_decoy" });
      expect((asset.structuredContent as { error: { code: string } }).error.code).toBe("PATH_OUTSIDE_SKILL");
      for (const result of [routed, asset]) expect(JSON.stringify(result)).not.toContain("DECOY");
      const notes = await call("get_asset", { skill_path: "tree/ok", file: "notes.txt" });
      expect(notes.structuredContent).toMatchObject({ content: "release notes\n" });
    } finally {
      await client.close();
    }
  }, 120_000);
});
