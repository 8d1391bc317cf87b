import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { packBundle } from "../../scripts/release/mcpb.ts";
import { pack, writeSums } from "../../scripts/release/pack.ts";
import { TARGETS, type Target } from "../../scripts/release/targets.ts";

/**
 * A release folder made by the real packers (archives, MCP Bundles) from stand-in binaries: shell scripts that print the
 * version for --version and their target otherwise, so installers can run what they installed.
 * `script` replaces that stand-in, e.g. with one that cannot run.
 */
export async function fakeRelease(
  dir: string,
  version: string,
  targets: readonly Target[] = TARGETS,
  script?: string,
): Promise<string> {
  mkdirSync(dir, { recursive: true });
  for (const target of targets) {
    const binary = join(dir, "bin", target.id, `skillhub${target.exe}`);
    mkdirSync(join(dir, "bin", target.id), { recursive: true });
    writeFileSync(
      binary,
      script ??
        `#!/bin/sh\nif [ "$1" = --version ]; then echo ${version}; else echo "fake skillhub ${target.id} $*"; fi\n`,
    );
    chmodSync(binary, 0o755);
    await pack({ version, target, binary, outDir: dir, epoch: 0 });
    // Bundles are zips: without Info-ZIP (tests that need it are skipped then) the archives alone.
    if (Bun.which("zip")) await packBundle({ version, target, binary, outDir: dir, epoch: 0 });
  }
  await writeSums(dir);
  return dir;
}

/** Flip one byte of a release's archive after SHA256SUMS was written: what a tampered download looks like. */
export function tamper(dir: string, name: string): void {
  const archive = join(dir, name);
  const bytes = readFileSync(archive);
  bytes[bytes.length - 20] = (bytes[bytes.length - 20] ?? 0) ^ 0xff;
  writeFileSync(archive, bytes);
}

/**
 * A loopback download server for release folders: `<url><which>/<file>` is `releases[which]/<file>`.
 * `requests` holds every path asked for, in order.
 */
export function serveReleases(releases: () => Record<string, string>) {
  const requests: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      requests.push(path);
      const [, which, name] = path.split("/");
      const dir = releases()[which ?? ""];
      if (!dir || !name || name.includes("..") || !existsSync(join(dir, name)))
        return new Response("not found", { status: 404 });
      return new Response(Bun.file(join(dir, name)));
    },
  });
  return { server, requests };
}
