/**
 * `make release VERSION=x.y.z`: cross-compile every target (Bun fetches each target's runtime
 * from the npm registry once and caches it), pack the archives and the MCP Bundles (.mcpb, for
 * Claude Desktop), write SHA256SUMS, then
 * smoke-test the binary this machine can run.
 *
 * Usage: bun scripts/release.ts --version X.Y.Z [--targets linux-x64,darwin-arm64] [--out DIR]
 *                               [--step all|build|pack] [--executable-dir DIR]
 *   build   compile into DIR/bin/<target>/ only (CI signs the darwin ones before packing)
 *   pack    archives, MCP Bundles (.mcpb) and SHA256SUMS from the binaries already in DIR/bin/
 *   --executable-dir  a folder of Bun runtimes named like Bun's cache (bun-darwin-aarch64-v1.4.5, the
 *                     bin/bun of npm's @oven/bun-darwin-aarch64@1.4.5), for machines where Bun cannot
 *                     download them itself (~/.bun/install/cache holds the ones it did download)
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { compile } from "./build.ts";
import { bundleName, packBundle } from "./release/mcpb.ts";
import { pack, writeSums } from "./release/pack.ts";
import { archiveName, checkVersion, hostTarget, TARGETS, type Target, targetById } from "./release/targets.ts";
import { smoke } from "./smoke.ts";

const { values } = parseArgs({
  options: {
    version: { type: "string" },
    targets: { type: "string" },
    out: { type: "string", default: "dist/release" },
    step: { type: "string", default: "all" },
    "executable-dir": { type: "string" },
  },
});

const say = (text: string) => process.stdout.write(`${text}\n`);
const mb = (path: string) => `${(statSync(path).size / 1e6).toFixed(1)} MB`;

/** Where `build` leaves a target's binary and `pack` finds it. */
export const binaryPath = (out: string, target: Target) => join(out, "bin", target.id, `skillhub${target.exe}`);

/** Bun names its cached runtimes "bun-<os>-<arch>[-musl][-baseline]-v<version>", with aarch64 for arm64. */
function runtimeFor(dir: string, target: Target): string {
  const name = `${target.bun.replace("arm64", "aarch64")}-v${Bun.version}`;
  const path = join(dir, name);
  if (!existsSync(path)) throw new Error(`no Bun runtime for ${target.id} at ${path}`);
  return path;
}

async function build(version: string, out: string, targets: readonly Target[]): Promise<void> {
  await Promise.all(
    targets.map(async (target) => {
      const outfile = binaryPath(out, target);
      mkdirSync(join(out, "bin", target.id), { recursive: true });
      const executablePath = values["executable-dir"] ? runtimeFor(values["executable-dir"], target) : undefined;
      // Bun appends .exe itself for Windows targets.
      const code = await compile(
        { version, target: target.bun, outfile: outfile.replace(/\.exe$/, ""), executablePath },
        true,
      );
      if (code !== 0 || !existsSync(outfile)) throw new Error(`compiling ${target.id} (${target.bun}) failed`);
      say(`built   ${target.id.padEnd(15)} ${mb(outfile)}`);
    }),
  );
}

async function packAll(version: string, out: string, targets: readonly Target[]): Promise<void> {
  // Archives of another version or a dropped target must not end up in SHA256SUMS.
  for (const name of readdirSync(out))
    if (name.startsWith("skillhub-") || name === "SHA256SUMS") rmSync(join(out, name));
  await Promise.all(
    targets.map(async (target) => {
      const binary = binaryPath(out, target);
      if (!existsSync(binary)) throw new Error(`no binary for ${target.id} at ${binary}: run the build step first`);
      const archive = await pack({ version, target, binary, outDir: out });
      say(`packed  ${archiveName(version, target).padEnd(40)} ${mb(archive)}`);
      const bundle = await packBundle({ version, target, binary, outDir: out });
      say(`bundled ${bundleName(version, target).padEnd(40)} ${mb(bundle)}`);
    }),
  );
  say(`wrote   ${await writeSums(out)}`);
}

if (import.meta.main) {
  try {
    const version = checkVersion(values.version ?? process.env.VERSION ?? "");
    const out = values.out ?? "dist/release";
    const targets = values.targets ? values.targets.split(",").map((id) => targetById(id.trim())) : TARGETS;
    const step = values.step ?? "all";
    if (!["all", "build", "pack"].includes(step)) throw new Error(`--step must be all, build or pack, not "${step}"`);
    const started = performance.now();
    mkdirSync(out, { recursive: true });
    if (step !== "pack") await build(version, out, targets);
    if (step !== "build") await packAll(version, out, targets);
    const host = hostTarget();
    if (step === "all" && host && targets.includes(host)) {
      await smoke(binaryPath(out, host), version);
      say(`smoke   ${host.id}: --version = ${version}, initialize and tools/list over stdio`);
    }
    say(
      `release ${version}: ${targets.length} targets in ${((performance.now() - started) / 1000).toFixed(1)} s → ${out}`,
    );
  } catch (error) {
    process.stderr.write(`release: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
