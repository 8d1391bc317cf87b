import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { lstatSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { BREW_TARGETS } from "../../scripts/formula.ts";
import { sha256File } from "../../scripts/release/pack.ts";
import { haveTools } from "../helpers/dist-tools.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";
import { fakeRelease } from "./fake-release.ts";

const ROOT = join(import.meta.dir, "..", "..");
const VERSION = "0.9.1";
const BASE = "https://example.test/releases/v0.9.1";
let release: string;
let formula: string;

function run(argv: string[], cwd = ROOT) {
  const proc = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe" });
  return { code: proc.exitCode, out: proc.stdout.toString(), err: proc.stderr.toString() };
}

/** The real generator, as `make formula` runs it. */
const generate = (dir: string, out: string) =>
  run([process.execPath, "scripts/formula.ts", "--release", dir, "--out", out, "--base-url", BASE]);

// The fake release holds every target, the Windows .zip too.
const ready = haveTools("zip", "ruby");

beforeAll(async () => {
  if (!ready) return;
  release = await fakeRelease(tempDir("skillhub-formula-release-"), VERSION);
  formula = join(tempDir("skillhub-formula-"), "skillhub.rb");
  const made = generate(release, formula);
  expect(made.err).toBe("");
  expect(made.code).toBe(0);
});
afterAll(cleanupTemp);

describe.if(ready)("make formula", () => {
  test("writes a formula that Ruby accepts", () => {
    const checked = run(["ruby", "-c", formula]);
    expect(checked.out.trim()).toBe("Syntax OK");
    expect(checked.code).toBe(0);
  });

  test("has a url and the archive's own sha256 for each OS and CPU Homebrew supports", async () => {
    const text = readFileSync(formula, "utf8");
    const pairs = [...text.matchAll(/url "([^"]+)"\n\s+sha256 "([0-9a-f]{64})"/g)];
    expect(pairs.length).toBe(BREW_TARGETS.length);
    for (const [, url, sha] of pairs) {
      expect(url?.startsWith(`${BASE}/`)).toBe(true);
      expect(await sha256File(join(release, basename(url as string)))).toBe(sha as string);
    }
    expect(text).toContain(`version "${VERSION}"`);
    expect(text).toContain('license "MIT"');
    expect(text).toContain('bin.install "skillhub"');
    expect(text).toContain('bin.install_symlink "skillhub" => "skillhub-mcp"');
  });

  for (const [os, arch, id] of [
    ["macos", "arm", "darwin-arm64"],
    ["macos", "intel", "darwin-x64"],
    ["linux", "arm", "linux-arm64"],
    ["linux", "intel", "linux-x64"],
  ] as const) {
    test(`on ${os}/${arch} installs skillhub and skillhub-mcp from the ${id} archive and passes its test block`, async () => {
      const picked = run(["ruby", join(import.meta.dir, "fake-brew.rb"), formula, os, arch]);
      expect(picked.err).toBe("");
      const { url, sha256 } = JSON.parse(picked.out) as { url: string; sha256: string };
      const archive = join(release, basename(url));
      expect(basename(url)).toBe(`skillhub-${VERSION}-${id}.tar.gz`);
      expect(await sha256File(archive)).toBe(sha256);
      const stage = tempDir("skillhub-brew-stage-");
      expect(run(["tar", "-xzf", archive, "-C", stage]).code).toBe(0);
      const prefix = tempDir("skillhub-brew-prefix-");
      const installed = run(["ruby", join(import.meta.dir, "fake-brew.rb"), formula, os, arch, stage, prefix]);
      expect(installed.err).toBe("");
      expect(installed.code).toBe(0);
      expect(lstatSync(join(prefix, "bin", "skillhub-mcp")).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(prefix, "bin", "skillhub-mcp"))).toBe("skillhub");
      expect(run([join(prefix, "bin", "skillhub"), "x"]).out).toContain(`fake skillhub ${id}`);
    });
  }

  test("refuses a release whose SHA256SUMS disagrees with an archive", async () => {
    const bad = await fakeRelease(tempDir("skillhub-formula-bad-"), VERSION, BREW_TARGETS);
    const sums = join(bad, "SHA256SUMS");
    // The first archive's line (the release holds MCP Bundles too, which the formula does not use).
    writeFileSync(sums, readFileSync(sums, "utf8").replace(/^[0-9a-f]{64}(?=\s+\S+\.tar\.gz$)/m, "0".repeat(64)));
    const out = join(tempDir("skillhub-formula-bad-out-"), "skillhub.rb");
    const made = generate(bad, out);
    expect(made.code).toBe(1);
    expect(made.err).toContain("SHA256SUMS says 0000");
  });
});
