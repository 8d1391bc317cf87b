import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { npmName } from "../../scripts/npm-packages.ts";
import { hostTarget, TARGETS } from "../../scripts/release/targets.ts";
import { haveTools } from "../helpers/dist-tools.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";
import { fakeRelease } from "./fake-release.ts";

const ROOT = join(import.meta.dir, "..", "..");
const VERSION = "0.9.1";
let out: string;
let release: string;

type Manifest = {
  name: string;
  version: string;
  license?: string;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  bin?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
const manifest = (dir: string) => JSON.parse(readFileSync(join(out, dir, "package.json"), "utf8")) as Manifest;

// The fake release holds every target, the Windows .zip too.
const ready = haveTools("zip");

beforeAll(async () => {
  if (!ready) return;
  release = await fakeRelease(tempDir("skillhub-npm-release-"), VERSION);
  out = join(tempDir("skillhub-npm-out-"), "npm");
  const made = Bun.spawnSync([process.execPath, "scripts/npm-packages.ts", "--release", release, "--out", out], {
    cwd: ROOT,
    stderr: "pipe",
  });
  expect(made.stderr.toString()).toBe("");
  expect(made.exitCode).toBe(0);
});
afterAll(cleanupTemp);

/** node_modules as npm lays it out on this machine: the launcher package and this platform's one. */
function installed(targetIds: string[]): string {
  const project = tempDir("skillhub-npm-project-");
  cpSync(join(out, "skillhub"), join(project, "node_modules", "skillhub"), { recursive: true });
  mkdirSync(join(project, "node_modules", "@skillhub-dev"), { recursive: true });
  for (const id of targetIds)
    cpSync(join(out, `skillhub-${id}`), join(project, "node_modules", "@skillhub-dev", `skillhub-${id}`), {
      recursive: true,
    });
  return join(project, "node_modules", "skillhub", "bin", "skillhub.js");
}

function node(launcher: string, args: string[]) {
  const proc = Bun.spawnSync(["node", launcher, ...args], {
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "" },
  });
  return { code: proc.exitCode, out: proc.stdout.toString(), err: proc.stderr.toString() };
}

describe.if(ready)("make npm-packages", () => {
  test("skillhub lists exactly one optional dependency per platform package, all at the release's version", () => {
    const main = manifest("skillhub");
    expect(main.version).toBe(VERSION);
    expect(main.bin).toEqual({ skillhub: "bin/skillhub.js", "skillhub-mcp": "bin/skillhub.js" });
    expect(main.optionalDependencies).toEqual(Object.fromEntries(TARGETS.map((t) => [npmName(t), VERSION])));
  });

  test("every package is MIT-licensed, in its manifest and with the project's LICENSE file beside it", () => {
    const license = readFileSync(join(ROOT, "LICENSE"), "utf8");
    expect(license).toStartWith("MIT License\n\nCopyright (c) 2026 SkillHub contributors\n");
    expect(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).license).toBe("MIT");
    for (const dir of ["skillhub", ...TARGETS.map((t) => `skillhub-${t.id}`)]) {
      expect(manifest(dir).license).toBe("MIT");
      expect(readFileSync(join(out, dir, "LICENSE"), "utf8")).toBe(license);
    }
  });

  test("each platform package declares the os, cpu and libc npm filters on, and holds its executable binary", () => {
    for (const target of TARGETS) {
      const m = manifest(`skillhub-${target.id}`);
      expect(m.name).toBe(npmName(target));
      expect(m.version).toBe(VERSION);
      expect(m.os).toEqual([target.os === "windows" ? "win32" : target.os]);
      expect(m.cpu).toEqual([target.arch]);
      expect(m.libc).toEqual(target.libc ? [target.libc] : undefined);
      const binary = join(out, `skillhub-${target.id}`, "bin", `skillhub${target.exe}`);
      expect(statSync(binary).mode & 0o111).not.toBe(0);
      expect(readFileSync(binary, "utf8")).toBe(
        readFileSync(join(release, "bin", target.id, `skillhub${target.exe}`), "utf8"),
      );
    }
  });

  const host = hostTarget();
  test.if(host !== undefined)("the launcher runs this platform's binary with the arguments it was given", () => {
    const launcher = installed([host?.id as string]);
    expect(node(launcher, ["--version"]).out.trim()).toBe(VERSION);
    expect(node(launcher, ["print-config", "cursor"]).out.trim()).toBe(`fake skillhub ${host?.id} print-config cursor`);
  });

  test.if(host !== undefined)("without this platform's package the launcher says what to do", () => {
    const others = TARGETS.filter((t) => t.id !== host?.id && !t.id.startsWith(`${host?.id}-`)).map((t) => t.id);
    const r = node(installed(others), ["--version"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${npmName(host as (typeof TARGETS)[number])} is not installed`);
  });
});
