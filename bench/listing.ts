/**
 * `make bench-listing`: a client that lists everything the server advertises, as Claude Code does at
 * start (tools/list, then every page of prompts/list and resources/list), against SkillHub at 1,000 and
 * 10,000 real-shaped skills (bench/lib/skills.ts), beside the floor (bench/floor/server.ts, compiled the
 * same way), in the same run: each list's answer time and bytes (resources/list: its slowest page), the
 * CPU the listing cost the server once its first scan and index were done, and the settled RSS.
 * Usage: bun bench/listing.ts [--sizes 1000,10000] [--runs 3]
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildFloor } from "./lib/floor.ts";
import { INITIALIZE, median, type Spawned, searchComplete, spawnServer } from "./lib/rpc.ts";
import { generateSkills } from "./lib/skills.ts";

const { values } = parseArgs({
  options: { sizes: { type: "string", default: "1000,10000" }, runs: { type: "string", default: "3" } },
});
const sizes = values.sizes.split(",").map(Number);
const runs = Number(values.runs);
const root = resolve(import.meta.dir, "..");
const skillhub = join(root, "dist", "skillhub");
const work = mkdtempSync(join(tmpdir(), "skillhub-bench-listing-"));
const say = (text = "") => process.stdout.write(`${text}\n`);

say("Compiling the floor (bench/floor/server.ts) with skillhub's flags...");
const floor = await buildFloor(work);

/** How long the server is left alone before RSS is read: background work done, as for make bench. */
const SETTLE_MS = 4000;

interface Listing {
  method: string;
  pages: number;
  items: number;
  bytes: number;
  /** The whole list, every page (ms). */
  ms: number;
  /** The slowest page (ms). */
  slowestPageMs: number;
}

/** Every page of `method`, timed page by page. */
async function listAll(s: Spawned, method: string, key: string): Promise<Listing> {
  const out: Listing = { method, pages: 0, items: 0, bytes: 0, ms: 0, slowestPageMs: 0 };
  let cursor: string | undefined;
  do {
    const started = performance.now();
    const reply = await s.request(method, cursor ? { cursor } : {});
    const ms = performance.now() - started;
    if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error).slice(0, 300)}`);
    out.pages++;
    out.items += (reply.result?.[key] ?? []).length;
    out.bytes += reply.bytes;
    out.ms += ms;
    out.slowestPageMs = Math.max(out.slowestPageMs, ms);
    cursor = reply.result?.nextCursor;
  } while (cursor);
  return out;
}

interface Figures {
  lists: Listing[];
  /** Server CPU (user + system) over the listing, after the first scan and index (ms). */
  listingCpuMs: number;
  settledMb: number;
}

/** One session: ready (a search waits for the scan and the index), settled, then the lists, then settled again. */
async function session(cmd: string[], env: Record<string, string>, cwd: string, full: boolean): Promise<Figures> {
  const s = spawnServer(cmd, { env, cwd });
  await s.request("initialize", INITIALIZE);
  s.notify("notifications/initialized");
  // A complete answer: the whole index built (and kept for the next start), not the early partial one.
  if (full) await searchComplete(s, "warm up");
  await Bun.sleep(SETTLE_MS);
  const cpu = s.cpuMs();
  const lists = [await listAll(s, "tools/list", "tools")];
  if (full) lists.push(await listAll(s, "prompts/list", "prompts"), await listAll(s, "resources/list", "resources"));
  const listingCpuMs = s.cpuMs() - cpu;
  await Bun.sleep(SETTLE_MS);
  const settledMb = s.rssKb() / 1024;
  await s.close();
  return { lists, listingCpuMs, settledMb };
}

for (const size of sizes) {
  const dir = join(work, `skills-${size}`);
  const home = join(work, `home-${size}`);
  mkdirSync(home, { recursive: true });
  generateSkills(dir, size);
  const env = { PATH: process.env.PATH ?? "", HOME: home, SKILLHUB_HOME: join(home, ".skillhub"), LOG_LEVEL: "ERROR" };
  // A first start leaves the catalog snapshot and the index behind, as a client's every later start finds them.
  await session([skillhub, "--skills-dir", dir], env, home, true);
  const hub: Figures[] = [];
  const base: Figures[] = [];
  for (let r = 0; r < runs; r++) {
    hub.push(await session([skillhub, "--skills-dir", dir], env, home, true));
    base.push(await session([floor], env, home, false));
  }
  const m = (xs: number[]) => median(xs);
  say(`\n== ${size} skills (medians of ${runs}; a shared machine: indicative)`);
  for (const [i, list] of (hub[0] as Figures).lists.entries()) {
    const of = (key: keyof Listing) => m(hub.map((f) => f.lists[i]?.[key] as number));
    say(
      `${list.method.padEnd(15)} ${of("pages")} page(s), ${of("items")} items, ${Math.round(of("bytes") / 1024)} KB, ${of("ms").toFixed(1)} ms in all, slowest page ${of("slowestPageMs").toFixed(1)} ms`,
    );
  }
  say(
    `listing CPU (server):  skillhub ${m(hub.map((f) => f.listingCpuMs)).toFixed(0)} ms   floor ${m(base.map((f) => f.listingCpuMs)).toFixed(0)} ms (tools/list only)`,
  );
  const settled = m(hub.map((f) => f.settledMb));
  const floorSettled = m(base.map((f) => f.settledMb));
  say(
    `settled RSS:           skillhub ${settled.toFixed(1)} MB   floor ${floorSettled.toFixed(1)} MB   (+${(settled - floorSettled).toFixed(1)} MB)`,
  );
}
rmSync(work, { recursive: true, force: true });
