import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";

afterAll(cleanupTemp);

const ROOT = join(import.meta.dir, "..", "..");

/** A copy of the Makefile, its inputs and scripts/ensure-bun.sh with no .tools/, and a PATH of only `tools`. */
function machineWithout(tools: string[]) {
  const root = tempDir("skillhub-no-node-");
  mkdirSync(join(root, "scripts"));
  for (const file of ["Makefile", "package.json", "bun.lock"]) copyFileSync(join(ROOT, file), join(root, file));
  copyFileSync(join(ROOT, "scripts", "ensure-bun.sh"), join(root, "scripts", "ensure-bun.sh"));
  const bin = join(root, "bin");
  mkdirSync(bin);
  for (const tool of tools) {
    const found = Bun.which(tool);
    if (found) symlinkSync(found, join(bin, tool));
  }
  return { root, env: { PATH: bin, HOME: root } };
}

describe("make on a machine without Node.js, npm or Bun", () => {
  test("ensure-bun.sh says what to install and exits 1; make stops there, naming no later command", () => {
    const m = machineWithout(["sh", "dirname", "make", "find"]);
    const script = Bun.spawnSync(["/bin/sh", "scripts/ensure-bun.sh"], {
      cwd: m.root,
      env: { ...m.env, BUN_VERSION: "1.4.5", SKILLHUB_LOCAL_BUN: "1" },
    });
    expect(script.exitCode).toBe(1);
    expect(script.stdout.toString()).toBe("");
    const said = script.stderr.toString();
    expect(said).toContain("install Node.js 20 or later (it brings npm)");
    expect(said).toContain("or put Bun 1.4.5 on PATH");
    if (!Bun.which("make")) return;
    const make = Bun.spawnSync(["make", "deps"], { cwd: m.root, env: { ...m.env, SKILLHUB_LOCAL_BUN: "1" } });
    expect(make.exitCode).not.toBe(0);
    const out = make.stdout.toString() + make.stderr.toString();
    expect(out).toContain("install Node.js 20 or later");
    expect(out).toContain("no Bun 1.4.5: see above.  Stop.");
    expect(out).not.toContain("install --frozen-lockfile");
  });
});
