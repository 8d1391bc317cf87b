/**
 * Start-up only, interleaved: spawn → initialize and spawn → first tools/list for each binary given
 * (default dist/skillhub) beside the floor, round by round in the same run, at each size. The second
 * start (the one a user's client sees every day) is what is timed: one warm-up start per size first
 * leaves the catalog snapshot and search index behind, as a previous session would.
 * Usage: bun bench/startup.ts [--sizes 1000,10000] [--runs 10] [--bin A --bin B ...]
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildFloor } from "./lib/floor.ts";
import { INITIALIZE, median, spawnServer } from "./lib/rpc.ts";
import { generateSkills } from "./lib/skills.ts";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000" },
    runs: { type: "string", default: "10" },
    bin: { type: "string", multiple: true },
    "skip-floor": { type: "boolean" },
  },
});
const root = resolve(import.meta.dir, "..");
const work = mkdtempSync(join(tmpdir(), "skillhub-startup-"));
const say = (text = "") => process.stdout.write(`${text}\n`);
const bins = values.bin?.length ? values.bin.map((b) => resolve(b)) : [join(root, "dist", "skillhub")];
const floor = values["skip-floor"] ? join(work, "floor") : await buildFloor(work);

/** One start: ms to the initialize answer and to the first tools/list answer (with how many tools it named). */
async function start(cmd: string[], env: Record<string, string>, cwd: string) {
  const s = spawnServer(cmd, { env, cwd });
  await s.request("initialize", INITIALIZE);
  const init = s.since();
  s.notify("notifications/initialized");
  const listed = await s.request("tools/list");
  const list = s.since();
  await s.close();
  return { init, list, bytes: listed.bytes };
}

try {
  for (const size of values.sizes.split(",").map(Number)) {
    const dir = join(work, `skills-${size}`);
    const home = join(work, `home-${size}`);
    mkdirSync(home, { recursive: true });
    if (generateSkills(dir, size).length !== size) throw new Error(`cannot generate ${size} skills`);
    const commands = bins.map((bin) => [bin, "--skills-dir", dir]);
    if (!values["skip-floor"]) commands.push([floor]);
    const names = [...bins.map((b) => b.replace(`${root}/`, "")), ...(values["skip-floor"] ? [] : ["floor"])];
    const env = { PATH: process.env.PATH ?? "", HOME: home, LOG_LEVEL: "ERROR" };
    // Each binary gets its own home: one version's snapshot must not be read by another.
    const envs = commands.map((_, i) => ({ ...env, SKILLHUB_HOME: join(home, `hub-${i}`) }));
    // Warm-up: the first start scans, indexes and keeps its snapshot (let it settle before closing).
    for (const [i, cmd] of commands.entries()) {
      const s = spawnServer(cmd, { env: envs[i], cwd: home });
      await s.request("initialize", INITIALIZE);
      s.notify("notifications/initialized");
      await s.request("tools/list");
      await Bun.sleep(size >= 10_000 ? 6000 : 2000);
      await s.close();
    }
    const init: number[][] = commands.map(() => []);
    const list: number[][] = commands.map(() => []);
    for (let r = 0; r < Number(values.runs); r++) {
      for (const [i, cmd] of commands.entries()) {
        const t = await start(cmd, envs[i] as Record<string, string>, home);
        init[i]?.push(t.init);
        list[i]?.push(t.list);
      }
    }
    say(`\n== ${size} skills, ${values.runs} interleaved rounds (medians; ratio to the last column)`);
    const last = commands.length - 1;
    for (const [i, name] of names.entries()) {
      const mi = median(init[i] as number[]);
      const ml = median(list[i] as number[]);
      const ri = mi / median(init[last] as number[]);
      const rl = ml / median(list[last] as number[]);
      say(
        `${name.padEnd(32)} initialize ${mi.toFixed(1).padStart(7)} ms (×${ri.toFixed(2)})   first tools/list ${ml.toFixed(1).padStart(7)} ms (×${rl.toFixed(2)})`,
      );
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
