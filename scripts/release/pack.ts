/**
 * Release archives and their checksums. An archive is flat (no top folder): the binary and
 * `skillhub-mcp`, a symlink to it in .tar.gz, a copy in Windows' .zip (Windows has no portable
 * symlink and MCP clients spawn .exe files, not shims). Archives are made with GNU tar and Info-ZIP
 * with fixed owners, order and times, so the same binaries give the same checksums.
 */
import {
  chmodSync,
  copyFileSync,
  lutimesSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { archiveName, type Target } from "./targets.ts";

export interface PackOptions {
  version: string;
  target: Target;
  /** The compiled binary for `target`. */
  binary: string;
  /** Folder the archive is written to. */
  outDir: string;
  /** Seconds since the epoch stamped on every entry. Default $SOURCE_DATE_EPOCH, else 0. */
  epoch?: number;
}

async function run(argv: string[], cwd: string): Promise<void> {
  const proc = Bun.spawn(argv, { cwd, stdout: "ignore", stderr: "pipe" });
  const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`${argv.join(" ")} failed (exit ${code}): ${err.trim()}`);
}

/** Write the archive for one target; resolves to its path. */
export async function pack(options: PackOptions): Promise<string> {
  const { target, outDir } = options;
  const epoch = options.epoch ?? Number(process.env.SOURCE_DATE_EPOCH ?? 0);
  const stage = mkdtempSync(join(tmpdir(), "skillhub-pack-"));
  try {
    const main = `skillhub${target.exe}`;
    const alias = `skillhub-mcp${target.exe}`;
    copyFileSync(options.binary, join(stage, main));
    chmodSync(join(stage, main), 0o755);
    if (target.archive === ".zip") copyFileSync(join(stage, main), join(stage, alias));
    else symlinkSync(main, join(stage, alias));
    for (const name of [main, alias]) lutimesSync(join(stage, name), epoch, epoch);
    const out = resolve(outDir, archiveName(options.version, target));
    rmSync(out, { force: true });
    if (target.archive === ".zip") {
      // -X: no extra attributes (uid, atime), which would make the checksum depend on the machine.
      await run(["zip", "-q", "-X", out, main, alias], stage);
    } else {
      const tar = join(stage, "a.tar");
      await run(
        [
          "tar",
          "--sort=name",
          "--owner=0",
          "--group=0",
          "--numeric-owner",
          `--mtime=@${epoch}`,
          "-cf",
          tar,
          main,
          alias,
        ],
        stage,
      );
      // -n: no name or time in the gzip header. Level 6: -9 saves 0.6% for twice the time.
      await run(["gzip", "-n", tar], stage);
      copyFileSync(`${tar}.gz`, out);
    }
    return out;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** Lowercase hex SHA-256 of a file. */
export async function sha256File(path: string): Promise<string> {
  return new Bun.CryptoHasher("sha256").update(await Bun.file(path).arrayBuffer()).digest("hex");
}

/** `sha256sum`-compatible lines ("<hex>  <name>") for every archive and MCP Bundle in `dir`, sorted by name. */
export async function writeSums(dir: string): Promise<string> {
  const names = readdirSync(dir)
    .filter((n) => n.startsWith("skillhub-") && /\.(tar\.gz|zip|mcpb)$/.test(n))
    .sort();
  const lines = await Promise.all(names.map(async (n) => `${await sha256File(join(dir, n))}  ${n}\n`));
  const path = join(dir, "SHA256SUMS");
  writeFileSync(path, lines.join(""));
  return path;
}

/** Parse SHA256SUMS into name → hex; accepts the binary-mode "*name" form too. */
export function readSums(path: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(line.trim());
    if (m?.[1] && m[2]) sums.set(basename(m[2]), m[1]);
  }
  return sums;
}
