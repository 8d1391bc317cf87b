/**
 * `make npm-packages`: the npm packages that make `npx skillhub` work, from a release's binaries.
 * `skillhub` holds a small Node launcher and lists one optional dependency per platform
 * (`@skillhub-dev/skillhub-linux-x64`, …), each holding one binary and declaring its os/cpu/libc,
 * so npm installs only the one that fits (the esbuild and biome layout).
 * Usage: bun scripts/npm-packages.ts [--release dist/release] [--out dist/npm] [--version X.Y.Z]
 * Publish the platform packages first, then skillhub: `npm publish --access public` in each folder.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pkg from "../package.json" with { type: "json" };
import { checkVersion, HOMEPAGE, NPM_SCOPE, REPOSITORY, TARGETS, type Target } from "./release/targets.ts";

const LAUNCHER = join(import.meta.dir, "release", "npm-launcher.js");
/** The project's LICENSE, shipped in every package (npm includes it whatever `files` says). */
const LICENSE = join(import.meta.dir, "..", "LICENSE");

/** npm's name for a target's package. */
export const npmName = (target: Target) => `${NPM_SCOPE}/skillhub-${target.id}`;

const common = (version: string) => ({
  version,
  license: pkg.license,
  homepage: HOMEPAGE,
  repository: { type: "git", url: `git+${HOMEPAGE}.git` },
  bugs: `${HOMEPAGE}/issues`,
});

/** package.json of one platform package: npm installs it only where os, cpu and libc match. */
export function platformManifest(version: string, target: Target): Record<string, unknown> {
  return {
    name: npmName(target),
    ...common(version),
    description: `The SkillHub binary for ${target.id}; installed by the skillhub package.`,
    os: [target.os === "windows" ? "win32" : target.os],
    cpu: [target.arch],
    ...(target.libc ? { libc: [target.libc] } : {}),
    files: ["bin"],
    preferUnplugged: true,
  };
}

/** package.json of the `skillhub` package. */
export function mainManifest(version: string, targets: readonly Target[]): Record<string, unknown> {
  return {
    name: "skillhub",
    ...common(version),
    description: pkg.description,
    keywords: ["mcp", "model-context-protocol", "agent-skills", "skills"],
    bin: { skillhub: "bin/skillhub.js", "skillhub-mcp": "bin/skillhub.js" },
    files: ["bin"],
    engines: { node: ">=18" },
    optionalDependencies: Object.fromEntries(targets.map((t) => [npmName(t), version])),
  };
}

/** The launcher with its target → package table filled in. */
export function launcherSource(targets: readonly Target[]): string {
  const table = Object.fromEntries(targets.map((t) => [t.id, { name: npmName(t), file: `skillhub${t.exe}` }]));
  return readFileSync(LAUNCHER, "utf8").replace("/* PACKAGES */ {}", JSON.stringify(table, null, 2));
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Write every package into `out` (emptied first); resolves to the folders written. */
export function writePackages(options: { release: string; out: string; version: string }): string[] {
  const { release, out, version } = options;
  const targets = TARGETS.filter((t) => existsSync(join(release, "bin", t.id, `skillhub${t.exe}`)));
  if (targets.length === 0) throw new Error(`no binaries in ${release}/bin/<target>/: run make release first`);
  rmSync(out, { recursive: true, force: true });
  const written: string[] = [];
  for (const target of targets) {
    const dir = join(out, `skillhub-${target.id}`);
    mkdirSync(join(dir, "bin"), { recursive: true });
    const binary = join(dir, "bin", `skillhub${target.exe}`);
    copyFileSync(join(release, "bin", target.id, `skillhub${target.exe}`), binary);
    chmodSync(binary, 0o755);
    writeFileSync(join(dir, "package.json"), json(platformManifest(version, target)));
    copyFileSync(LICENSE, join(dir, "LICENSE"));
    writeFileSync(
      join(dir, "README.md"),
      `# ${npmName(target)}\n\nThe SkillHub binary for ${target.id}. Install [skillhub](https://www.npmjs.com/package/skillhub) instead.\n`,
    );
    written.push(dir);
  }
  const main = join(out, "skillhub");
  mkdirSync(join(main, "bin"), { recursive: true });
  writeFileSync(join(main, "bin", "skillhub.js"), launcherSource(targets));
  chmodSync(join(main, "bin", "skillhub.js"), 0o755);
  writeFileSync(join(main, "package.json"), json(mainManifest(version, targets)));
  copyFileSync(LICENSE, join(main, "LICENSE"));
  writeFileSync(
    join(main, "README.md"),
    `# skillhub\n\n${pkg.description}.\n\nIn an MCP client's configuration: \`{"command": "npx", "args": ["-y", "skillhub"]}\`.\nInstalling the binary is faster to start: see ${HOMEPAGE}#install. Source: github.com/${REPOSITORY}.\n`,
  );
  written.push(main);
  return written;
}

/** The version of the archives in a release folder, when there are any. */
function releaseVersion(release: string): string | undefined {
  const names = existsSync(release) ? readdirSync(release) : [];
  return names.map((n) => /^skillhub-(.+)-(?:linux|darwin|windows)-/.exec(n)?.[1]).find(Boolean);
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      release: { type: "string", default: "dist/release" },
      out: { type: "string", default: "dist/npm" },
      version: { type: "string" },
    },
  });
  try {
    const release = values.release ?? "dist/release";
    const version = checkVersion(values.version ?? releaseVersion(release) ?? "");
    for (const dir of writePackages({ release, out: values.out ?? "dist/npm", version }))
      process.stdout.write(`wrote ${dir}\n`);
  } catch (error) {
    process.stderr.write(`npm-packages: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
