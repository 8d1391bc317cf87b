import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { Glob } from "bun";

const ROOT = join(import.meta.dir, "..", "..");
export const BINARY = join(ROOT, "dist", "skillhub");

/** The compiled binary, built first when missing or older than a source file. */
export function binary(): string {
  const built = existsSync(BINARY) ? statSync(BINARY).mtimeMs : 0;
  let newest = 0;
  for (const file of new Glob("src/**/*.ts").scanSync({ cwd: ROOT }))
    newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs);
  if (built < newest) {
    const proc = Bun.spawnSync([process.execPath, "scripts/build.ts"], {
      cwd: ROOT,
      stdout: "ignore",
      stderr: "inherit",
    });
    if (proc.exitCode !== 0) throw new Error("could not build dist/skillhub (run `make build` to see why)");
  }
  return BINARY;
}
