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
  `../${"x".repeat(131_000)}`,
  "\u202e../outside/secret.txt",
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
  `victim${"v".repeat(300)}`,
  "vi\u0301ctim",
  "\ud800victim",
  "victim\u200f\n",
  "v".repeat(1_048_576),
];

/** Wrong types and extreme numbers for every field a tool reads; each must be an INVALID_ARGUMENT result. */
const WRONG_VALUES: unknown[] = [null, -1, 1e308, 1.5, -0.5, true, [], ["victim"], {}, { $ref: "x" }];

type FieldKind = "string" | "number" | "boolean" | "array" | "record";

/** Every field of every tool, with its kind and a valid call around it. */
const FIELDS: Record<string, { base: Record<string, unknown>; fields: Record<string, FieldKind> }> = {
  skill: { base: { name: "victim" }, fields: { name: "string", command: "string" } },
  search_skills: { base: { query: "victim" }, fields: { query: "string", limit: "number", category: "string" } },
  load_skill: { base: { skill_name: "victim" }, fields: { skill_name: "string" } },
  read_skill_file: {
    base: { skill_name: "victim", file_path: "notes.txt" },
    fields: { skill_name: "string", file_path: "string", offset: "number", length: "number" },
  },
  list_skills: {
    base: {},
    fields: {
      path: "string",
      flat: "boolean",
      query: "string",
      include_body: "boolean",
      limit: "number",
      cursor: "string",
    },
  },
  get_skill: { base: { context: "deploy" }, fields: { context: "string" } },
  get_asset: { base: { skill_path: "deploy", file: "guide.md" }, fields: { skill_path: "string", file: "string" } },
  run_script: {
    base: { skill_path: "deploy", file: "x.sh" },
    fields: { skill_path: "string", file: "string", args: "record", cwd: "string" },
  },
  run_skill_command: {
    base: { skill_name: "tools", command: "cat", args: ["data.txt"] },
    fields: { skill_name: "string", command: "string", args: "array" },
  },
  report_usage: {
    base: { skill_path: "victim", useful: true },
    fields: { skill_path: "string", useful: "boolean", comment: "string" },
  },
};

/** Whether `value` is of `kind` after all (then it is no wrong value for that field). */
function fits(value: unknown, kind: FieldKind): boolean {
  if (kind === "record") return typeof value === "object" && value !== null && !Array.isArray(value);
  if (kind === "array") return Array.isArray(value) && value.every((v) => typeof v === "string");
  return (
    typeof value === kind &&
    (kind !== "number" || (Number.isInteger(value) && (value as number) > 0 && (value as number) < 100))
  );
}

/** Calls whose every field in turn holds a wrong type or an extreme number. */
export function wrongTypeCalls(): { tool: string; args: Record<string, unknown> }[] {
  const calls: { tool: string; args: Record<string, unknown> }[] = [];
  for (const [tool, { base, fields }] of Object.entries(FIELDS))
    for (const [field, kind] of Object.entries(fields))
      for (const value of WRONG_VALUES) if (!fits(value, kind)) calls.push({ tool, args: { ...base, [field]: value } });
  return calls;
}

/** Most bytes of an error answer: a hostile argument is quoted back cut short, never whole. */
const MAX_ERROR_ANSWER = 64 * 1024;

/** Why an answer to a hostile call is not one a model can act on (undefined when it is). */
export function unusableAnswer(answer: Message): string | undefined {
  const result = answer.result as { isError?: boolean; structuredContent?: { error?: { code?: unknown } } } | undefined;
  if (!result) return answer.error ? undefined : "neither a result nor an error";
  if (!result.isError) return undefined;
  if (typeof result.structuredContent?.error?.code !== "string") return "an error result without a code";
  const size = JSON.stringify(result).length;
  return size > MAX_ERROR_ANSWER ? `an error answer of ${size} bytes` : undefined;
}

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
  calls.push({ tool: "skill", args: { name: "victim", ["k".repeat(1_048_576)]: 1 } });
  calls.push({
    tool: "run_script",
    args: { skill_path: "deploy", file: "x.sh", args: { ["k".repeat(1_048_576)]: 5 } },
  });
  calls.push({
    tool: "load_skill",
    args: { skill_name: "victim", ...Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i])) },
  });
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
      const unusable = answer === "timeout" ? undefined : unusableAnswer(answer);
      must(unusable === undefined, `${unusable}`);
      return true;
    });
  }
  await suite.check(
    "stdio: every field of every tool with a wrong type or an extreme number is INVALID_ARGUMENT",
    async () => {
      for (const call of wrongTypeCalls()) {
        const answer = await client.request("tools/call", { name: call.tool, arguments: call.args }, 15_000);
        record(answer);
        const label = `${call.tool}(${JSON.stringify(call.args).slice(0, 80)})`;
        must(answer !== "timeout", `${label}: no answer within 15 s`);
        if (answer === "timeout") continue;
        const unusable = unusableAnswer(answer);
        must(unusable === undefined, `${label}: ${unusable}`);
        const code = (answer.result as { structuredContent?: { error?: { code?: string } } } | undefined)
          ?.structuredContent?.error?.code;
        must(code === "INVALID_ARGUMENT", `${label}: answered ${code ?? "without an error"}`);
      }
      return true;
    },
  );
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
