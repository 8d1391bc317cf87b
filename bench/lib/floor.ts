import { join } from "node:path";
import { compile } from "../../scripts/build.ts";

/**
 * The floor every benchmark times SkillHub beside: bench/floor/server.ts (the same SDK over stdio, one
 * trivial tool), compiled with the binary's own flags into `work`. Its path.
 */
export async function buildFloor(work: string): Promise<string> {
  const floor = join(work, "floor");
  if ((await compile({ entry: "bench/floor/server.ts", outfile: floor }, true)) !== 0)
    throw new Error("floor build failed");
  return floor;
}
