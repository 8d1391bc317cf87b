import { readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Message, RawStdio } from "./raw-client.ts";
import { must, type Suite } from "./suite.ts";
import type { FuzzWorld } from "./world.ts";

/** Paths a hostile client tries in every tool that takes one. */
export const HOSTILE_PATHS = [
  "../../outside/secret.txt",
  "/etc/passwd",
  "escape.txt",
  "outdir/secret.txt",
  "pipe",
  "random.bin",
  "a\0b",
  "..\\..\\outside\\secret.txt",
  "C:\\Windows\\win.ini",
  "x".repeat(10_000),
  "%2e%2e/%2e%2e/outside/secret.txt",
  "data.txt/../../../outside/secret.txt",
  "",
  " ",
  "leak.md",
  "guide.md/../leak.md",
];

export const HOSTILE_NAMES = [
  "../victim",
  "victim\0",
  "x".repeat(100_000),
  "tools/../victim",
  "linked-private",
  "private",
  "fifo-skill",
  "huge",
  "bomb",
  "yaml-spaces-then-broken-line",
  "global:victim",
  "\u202evictim",
];

/** Every tool call with every hostile argument; each must be answered before the deadline. */
export function hostileCalls(): { tool: string; args: Record<string, unknown> }[] {
  const calls: { tool: string; args: Record<string, unknown> }[] = [];
  for (const p of HOSTILE_PATHS) {
    calls.push({ tool: "read_skill_file", args: { skill_name: "tools", file_path: p } });
    calls.push({ tool: "get_asset", args: { skill_path: "deploy", file: p } });
    calls.push({ tool: "list_skills", args: { path: p } });
    calls.push({ tool: "run_skill_command", args: { skill_name: "tools", command: "cat", args: [p] } });
    calls.push({ tool: "run_script", args: { skill_path: "deploy", file: p, args: {} } });
  }
  for (const n of HOSTILE_NAMES) {
    calls.push({ tool: "skill", args: { name: n } });
    calls.push({ tool: "load_skill", args: { skill_name: n } });
    calls.push({ tool: "read_skill_file", args: { skill_name: n, file_path: "SKILL.md" } });
    calls.push({ tool: "get_skill", args: { context: n } });
    calls.push({ tool: "search_skills", args: { query: n } });
    calls.push({ tool: "report_usage", args: { skill_path: n, useful: false, comment: n } });
  }
  for (const args of [
    ["-R", "needle", "."],
    ["-r", "--dereference-recursive", "needle"],
    ["-L", "outdir"],
  ])
    calls.push({
      tool: "run_skill_command",
      args: { skill_name: "tools", command: args[0] === "-L" ? "ls" : "grep", args },
    });
  calls.push({ tool: "run_skill_command", args: { skill_name: "tools", command: "/bin/sh", args: ["-c", "env"] } });
  calls.push({ tool: "list_skills", args: { include_body: true } });
  calls.push({ tool: "refresh_skills", args: {} });
  return calls;
}

/** Protocol garbage, each followed by a ping that must be answered. */
export const GARBAGE: (string | Uint8Array)[] = [
  "not json",
  "{",
  "[]",
  "[1,2,3]",
  "null",
  "42",
  '"str"',
  '{"jsonrpc":"2.0"}',
  '{"jsonrpc":"2.0","id":{},"method":"ping"}',
  '{"jsonrpc":"1.0","id":"g0","method":"ping"}',
  '{"jsonrpc":"2.0","id":"g1","method":"tools/call","params":"x"}',
  '{"jsonrpc":"2.0","id":"g2","method":"tools/call","params":{"name":"skill","arguments":{"name":123}}}',
  '{"jsonrpc":"2.0","id":"g3","method":"no/such/method"}',
  `{"jsonrpc":"2.0","id":"g4","method":"ping","params":${"[".repeat(50_000)}${"]".repeat(50_000)}}`,
  "[".repeat(200_000),
  `{"jsonrpc":"2.0","id":"g5","method":"tools/call","params":{"name":"search_skills","arguments":{"query":"${"a ".repeat(500_000)}"}}}`,
  "\u0000\u0001\u0002",
  new Uint8Array([0xff, 0xfe, 0xfd, 0x0a]),
  '{"jsonrpc":"2.0","id":"g6","method":"resources/read","params":{"uri":"file:///etc/passwd"}}',
  '{"jsonrpc":"2.0","id":"g7","method":"prompts/get","params":{"name":"../../x"}}',
];

export async function stdioCases(suite: Suite, client: RawStdio, world: FuzzWorld, answers: string[]): Promise<void> {
  const record = (m: Message | "timeout") => {
    if (m !== "timeout") answers.push(JSON.stringify(m));
  };
  await suite.check("stdio: initialize answered", () => client.initialize());
  for (const [i, garbage] of GARBAGE.entries()) {
    await suite.check(`stdio garbage #${i}: server still answers`, async () => {
      if (typeof garbage === "string") client.send(garbage);
      else {
        const sink = client.proc.stdin as import("bun").FileSink;
        sink.write(garbage);
        void sink.flush();
      }
      return client.alive();
    });
  }
  for (const call of hostileCalls()) {
    const label = `stdio ${call.tool}(${JSON.stringify(call.args).slice(0, 60)})`;
    await suite.check(label, async () => {
      const answer = await client.request("tools/call", { name: call.tool, arguments: call.args }, 15_000);
      record(answer);
      must(answer !== "timeout", "no answer within 15 s");
      return true;
    });
  }
  await suite.check("stdio: SKILL.md swapped with a link out 400 times during calls; no outside byte", async () => {
    const file = join(world.skills, "victim", "SKILL.md");
    const real = readFileSync(file, "utf8");
    let stop = false;
    let flips = 0;
    const swapper = (async () => {
      while (!stop) {
        const tmp = `${file}.${flips}`;
        if (flips % 2 === 0) symlinkSync(join(world.outside, "notaskill", "SKILL.md"), tmp);
        else writeFileSync(tmp, real);
        renameSync(tmp, file);
        flips++;
        await Bun.sleep(1);
      }
    })();
    for (let i = 0; i < 200 && !suite.outOfTime; i++) {
      for (const [tool, args] of [
        ["skill", { name: "victim" }],
        ["load_skill", { skill_name: "victim" }],
      ] as const) {
        const answer = await client.request("tools/call", { name: tool, arguments: args }, 15_000);
        record(answer);
        must(answer !== "timeout", `${tool} not answered during swaps`);
      }
    }
    stop = true;
    await swapper;
    writeFileSync(`${file}.final`, real);
    renameSync(`${file}.final`, file);
    return flips > 0;
  });
  await suite.check("stdio: a file replaced by a FIFO during calls is refused at once", async () => {
    const answer = await client.request(
      "tools/call",
      { name: "read_skill_file", arguments: { skill_name: "tools", file_path: "pipe" } },
      10_000,
    );
    record(answer);
    return answer !== "timeout" && JSON.stringify(answer).includes("NOT_A_REGULAR_FILE");
  });
  await suite.check("stdio: every stdout line is JSON", () => {
    must(client.nonJson.length === 0, `non-JSON stdout: ${JSON.stringify(client.nonJson.slice(0, 3))}`);
    return true;
  });
}
