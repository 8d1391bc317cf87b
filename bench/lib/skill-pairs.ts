import { join } from "node:path";
import { INITIALIZE, percentile, type Spawned, searchComplete, spawnServer } from "./rpc.ts";

/** p50/p95 of SkillHub's tool (named skill* whichever tool it is) and of the fair floor's. */
export interface PairFigures {
  skillP50: number;
  skillP95: number;
  fairP50: number;
  fairP95: number;
  /** skillP50 / fairP50: both from the same stretch of time. */
  ratio: number;
}

/** initialize, initialized and tools/list: a server as a client leaves it before its first call. */
export async function opened(server: Spawned): Promise<Spawned> {
  await server.request("initialize", INITIALIZE);
  server.notify("notifications/initialized");
  await server.request("tools/list");
  return server;
}

/** A SkillHub tool that serves a SKILL.md, and the fair floor's tool that reads and returns it in the same form. */
export interface ToolPair {
  tool: string;
  args: (name: string) => object;
  floorTool: string;
  /** Where in the order of names this pair starts (a fraction of them): each pair reads skills the other did not. */
  start: number;
}

/** `skill` (the file as text) against `read`. */
export const SKILL_PAIR: ToolPair = { tool: "skill", args: (name) => ({ name }), floorTool: "read", start: 0 };

/** `load_skill` (structured content with its JSON text mirror) against `read_structured`, which answers alike. */
export const LOAD_SKILL_PAIR: ToolPair = {
  tool: "load_skill",
  args: (name) => ({ skill_name: name }),
  floorTool: "read_structured",
  start: 0.5,
};

/**
 * A SkillHub tool against the fair floor's tool reading the same SKILL.md, call by call in
 * alternating order, so that whatever the machine does at a moment weighs on both alike: timed in
 * separate sessions, the `skill` ratio moved between ×1.02 and ×1.65 from run to run with one binary.
 * The first `warm` pairs warm both up (compiled code, caches) and are not counted.
 */
export async function besideFair(
  hub: Spawned,
  fair: Spawned,
  dir: string,
  names: readonly string[],
  calls: number,
  pair: ToolPair = SKILL_PAIR,
  warm = 200,
): Promise<PairFigures> {
  const ours: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < calls + warm; i++) {
    const name = names[((i + Math.floor(pair.start * names.length)) * 7919) % names.length] as string;
    for (const which of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const started = performance.now();
      const reply =
        which === 0
          ? await hub.request("tools/call", { name: pair.tool, arguments: pair.args(name) })
          : await fair.request("tools/call", {
              name: pair.floorTool,
              arguments: { path: join(dir, name, "SKILL.md") },
            });
      const took = performance.now() - started;
      if (reply.error || reply.result?.isError) throw new Error(`call failed: ${JSON.stringify(reply).slice(0, 200)}`);
      if (i >= warm) (which === 0 ? ours : floor).push(took);
    }
  }
  const figures = {
    skillP50: percentile(ours, 50),
    skillP95: percentile(ours, 95),
    fairP50: percentile(floor, 50),
    fairP95: percentile(floor, 95),
  };
  return { ...figures, ratio: figures.skillP50 / figures.fairP50 };
}

export interface PairRounds {
  skill: PairFigures[];
  loadSkill: PairFigures[];
}

/**
 * `skill` and `load_skill` beside the fair floor, `rounds` times with a fresh pair of servers: SkillHub
 * started as a client starts it every day, from its saved index (a first, untimed start saves one when
 * there is none), its first search answered (the index loaded) before calls are timed.
 */
export async function pairRounds(options: {
  hubCmd: string[];
  floor: string;
  dir: string;
  names: readonly string[];
  env: Record<string, string>;
  cwd: string;
  calls: number;
  rounds: number;
}): Promise<PairRounds> {
  const { dir, names, env, cwd, calls } = options;
  const startHub = async () => {
    const hub = await opened(spawnServer(options.hubCmd, { env, cwd }));
    await searchComplete(hub, "analyse single-cell RNA data");
    return hub;
  };
  await (await startHub()).close();
  const out: PairRounds = { skill: [], loadSkill: [] };
  for (let r = 0; r < options.rounds; r++) {
    const hub = await startHub();
    const fair = await opened(spawnServer([options.floor, "--structured"], { env, cwd }));
    out.skill.push(await besideFair(hub, fair, dir, names, calls, SKILL_PAIR));
    out.loadSkill.push(await besideFair(hub, fair, dir, names, calls, LOAD_SKILL_PAIR));
    await hub.close();
    await fair.close();
  }
  return out;
}
