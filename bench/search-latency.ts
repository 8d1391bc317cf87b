/**
 * search_skills latency over stdio, two binaries side by side in one run (calls interleaved, so
 * machine load hits both alike): p50 and p95 of each and their ratio, after each has its index.
 *   bun bench/search-latency.ts --dir SKILLS --bin dist/skillhub [--vs OTHER_BIN] [--calls 400]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { INITIALIZE, percentile, searchComplete, spawnServer } from "./lib/rpc.ts";

const { values } = parseArgs({
  options: {
    dir: { type: "string" },
    bin: { type: "string", default: "dist/skillhub" },
    vs: { type: "string" },
    calls: { type: "string", default: "400" },
  },
});
if (!values.dir) throw new Error("--dir SKILLS is required");
const queries = (await Bun.file(join(import.meta.dir, "eval", "queries.json")).json()).map(
  (q: { query: string }) => q.query,
) as string[];
const bins = [values.bin, ...(values.vs ? [values.vs] : [])].map((b) => resolve(b));
const servers = bins.map((bin) => {
  const home = mkdtempSync(join(tmpdir(), "skillhub-search-"));
  const env = { PATH: process.env.PATH ?? "", HOME: home, SKILLHUB_HOME: join(home, ".skillhub"), LOG_LEVEL: "ERROR" };
  return {
    bin,
    home,
    s: spawnServer([bin, "--skills-dir", values.dir as string], { env, cwd: home }),
    times: [] as number[],
  };
});
for (const { s } of servers) {
  await s.request("initialize", INITIALIZE);
  s.notify("notifications/initialized");
  await s.request("tools/list");
  await searchComplete(s, "warm up");
}
// Past the background save (2 s after the build).
await Bun.sleep(4000);
for (let i = 0; i < Number(values.calls); i++)
  for (const server of servers) {
    const started = performance.now();
    const reply = await server.s.request("tools/call", {
      name: "search_skills",
      arguments: { query: queries[i % queries.length] },
    });
    server.times.push(performance.now() - started);
    if (reply.error || reply.result?.isError) throw new Error(`search failed: ${JSON.stringify(reply).slice(0, 300)}`);
  }
for (const { bin, times } of servers)
  process.stdout.write(
    `${bin}: search_skills p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms (${times.length} calls)\n`,
  );
if (servers.length === 2) {
  const [a, b] = servers as [(typeof servers)[0], (typeof servers)[0]];
  process.stdout.write(
    `ratio A/B: p50 ${(percentile(a.times, 50) / percentile(b.times, 50)).toFixed(2)}, p95 ${(percentile(a.times, 95) / percentile(b.times, 95)).toFixed(2)}\n`,
  );
}
for (const { s, home } of servers) {
  await s.close();
  rmSync(home, { recursive: true, force: true });
}
