/**
 * What frozen mode costs a call: `skill`, `load_skill` and `read_skill_file` on a locked skill of
 * 9,000 files, and `skill` on one of 20,000 files (recorded as too large), against the same binary
 * serving the same project without --frozen (the floor), interleaved call by call in one run so that
 * machine drift hits both alike. p50/p95 of each and the p50 ratio; a call must cost one file read,
 * never a walk of the skill.
 * Usage: bun bench/frozen-calls.ts [--calls 300] [--bin dist/skillhub]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { INITIALIZE, percentile, spawnServer } from "./lib/rpc.ts";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "300" },
    bin: { type: "string", default: join(resolve(import.meta.dir, ".."), "dist", "skillhub") },
  },
});
const work = mkdtempSync(join(tmpdir(), "skillhub-frozen-calls-"));
const project = join(work, "project");
const skills = join(project, ".agents", "skills");
const home = join(work, "home");
mkdirSync(home, { recursive: true });

/** A skill with `files` small files in folders of 100. */
function skillWith(name: string, files: number): void {
  const dir = join(skills, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: A skill with ${files} files.\n---\n\n# ${name}\n\nSteps.\n`,
  );
  for (let i = 0; i < files; i++) {
    const folder = join(dir, "data", `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `f${i}.md`), `# File ${i}\n\nSome reference text.\n`);
  }
}

const ms = (n: number) => `${n.toFixed(3)} ms`;
try {
  skillWith("big", 9_000);
  skillWith("huge", 20_000);
  const env = { PATH: process.env.PATH ?? "", HOME: home, LOG_LEVEL: "ERROR", SKILLHUB_RESCAN_SECONDS: "0" };
  const lock = Bun.spawnSync([values.bin, "lock", "--project", project], { env, cwd: project });
  if (lock.exitCode !== 0) throw new Error(`skillhub lock failed: ${lock.stderr.toString()}`);
  const base = [values.bin, "--no-watch", "--project", project];
  const servers = {
    frozen: spawnServer([...base, "--frozen"], { env, cwd: project }),
    floor: spawnServer(base, { env, cwd: project }),
  };
  for (const s of Object.values(servers)) {
    await s.request("initialize", INITIALIZE);
    s.notify("notifications/initialized");
    await s.request("tools/list");
  }
  const calls: [string, Record<string, unknown>][] = [
    ["skill", { name: "big" }],
    ["load_skill", { skill_name: "big" }],
    ["read_skill_file", { skill_name: "big", file_path: "data/d45/f4500.md" }],
    ["skill", { name: "huge" }],
  ];
  for (const [tool, args] of calls) {
    const times = { frozen: [] as number[], floor: [] as number[] };
    let refused = 0;
    for (let i = 0; i < Number(values.calls); i++) {
      for (const which of ["frozen", "floor"] as const) {
        const t = performance.now();
        const reply = await servers[which].request("tools/call", { name: tool, arguments: args });
        times[which].push(performance.now() - t);
        if (which === "frozen" && reply.result?.isError) refused++;
      }
    }
    const p50 = (which: "frozen" | "floor") => percentile(times[which], 50);
    process.stdout.write(
      `${tool}(${JSON.stringify(args)}): frozen p50 ${ms(p50("frozen"))} p95 ${ms(percentile(times.frozen, 95))}${refused ? ` (refused ${refused}×)` : ""}; floor (not frozen) p50 ${ms(p50("floor"))} p95 ${ms(percentile(times.floor, 95))}; p50 ratio ${(p50("frozen") / p50("floor")).toFixed(2)}\n`,
    );
  }
  for (const s of Object.values(servers)) await s.close();
} finally {
  rmSync(work, { recursive: true, force: true });
}
