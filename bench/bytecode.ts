/**
 * `make bench-bytecode`: is `bun build --bytecode` worth its size? Builds the binary with and
 * without the bytecode cache, then times spawn → initialize response over stdio, interleaving
 * the two so that machine noise hits both alike. Usage: bun bench/bytecode.ts [--runs N]
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compile } from "../scripts/build.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "40" } } });
const runs = Number(values.runs);
const work = mkdtempSync(join(tmpdir(), "skillhub-bytecode-"));
const skills = resolve(import.meta.dir, "..", "skills-example");
const say = (text = "") => process.stdout.write(`${text}\n`);

const variants = [
  { name: "no bytecode", bytecode: false, path: join(work, "plain") },
  { name: "--bytecode", bytecode: true, path: join(work, "bytecode") },
];

const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
})}\n`;

/** Milliseconds from spawn to the first byte-complete initialize response on stdout. */
async function startup(bin: string): Promise<number> {
  const started = performance.now();
  const proc = Bun.spawn([bin, "--skills-dir", skills, "--no-watch"], {
    cwd: work,
    // An empty HOME keeps the user's own skills out of the measurement.
    env: { PATH: process.env.PATH ?? "", HOME: work, LOG_LEVEL: "ERROR" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  proc.stdin.write(INITIALIZE);
  proc.stdin.flush();
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of proc.stdout) {
    text += decoder.decode(chunk, { stream: true });
    if (text.includes('"id":1') && text.includes("\n")) break;
  }
  const elapsed = performance.now() - started;
  if (!text.includes('"serverInfo"')) throw new Error(`${bin} gave no initialize response: ${text.slice(0, 200)}`);
  proc.stdin.end();
  await proc.exited;
  return elapsed;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

try {
  for (const v of variants) {
    if ((await compile({ outfile: v.path, bytecode: v.bytecode }, true)) !== 0)
      throw new Error(`build failed: ${v.name}`);
  }
  for (const v of variants) await startup(v.path); // warm the page cache for both
  const times = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  for (let i = 0; i < runs; i++) for (const v of variants) times.get(v.name)?.push(await startup(v.path));
  say(`spawn → initialize response, ${runs} runs each (Bun ${Bun.version}, ${process.platform}-${process.arch})\n`);
  say("variant          median       p90       min      size");
  for (const v of variants) {
    const t = (times.get(v.name) ?? []).sort((a, b) => a - b);
    const mb = (statSync(v.path).size / 1e6).toFixed(1);
    const cells = [quantile(t, 0.5), quantile(t, 0.9), t[0] ?? Number.NaN].map((ms) =>
      `${ms.toFixed(1)} ms`.padStart(10),
    );
    say(`${v.name.padEnd(13)}${cells.join("")}  ${mb.padStart(6)} MB`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
