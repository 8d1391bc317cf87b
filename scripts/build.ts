/**
 * Build dist/skillhub (or OUT for a --target), the one place the compile flags live.
 * Usage: bun scripts/build.ts [--target bun-linux-x64] [--outfile PATH] [--bytecode | --no-bytecode]
 *                             [--version X.Y.Z] [--executable-path BUN]
 * scripts/release.ts and bench/bytecode.ts import `compile` so every binary gets the same flags.
 */
import { parseArgs } from "node:util";
import pkg from "../package.json" with { type: "json" };

const ROOT = `${import.meta.dir}/..`;

/**
 * Whether binaries carry a JSC bytecode cache. `make bench-bytecode` (Bun 1.3.14, linux-x64, a busy
 * 2-core VM, spawn → initialize response, 40-60 runs, three sessions): median 11-18% lower with it
 * (e.g. 395 → 323 ms, 362 → 322 ms), minimum 10-18% lower (224 → 202 ms), for +8 MB of binary
 * (95.5 → 103.8 MB; +1.8 MB gzipped). Bun 1.4.5, 40 runs: median 180.8 → 84.1 ms, minimum 125.0 →
 * 62.9 ms, 110.3 → 115.0 MB. Every MCP client launch pays start-up, so the cache is on.
 */
export const BYTECODE_DEFAULT = true;

/**
 * Scripts the binary runs in Worker threads (util/worker-task.ts): each is an entry point of its own, kept
 * at its path under src/ inside the binary.
 */
export const WORKER_SCRIPTS = [
  "src/catalog/parse-worker.ts",
  "src/search/index-worker.ts",
  "src/ui/markdown-worker.ts",
];

export interface CompileOptions {
  /** Bun compile target, e.g. "bun-darwin-arm64". Default: the host. */
  target?: string;
  /** Output path; Bun appends ".exe" for Windows targets. Default dist/skillhub. */
  outfile?: string;
  /** Embed a bytecode cache. Default BYTECODE_DEFAULT. */
  bytecode?: boolean;
  /** Version injected as SKILLHUB_VERSION. Default $VERSION, else package.json. */
  version?: string;
  /** A Bun runtime for the target, instead of letting Bun download it from the npm registry. */
  executablePath?: string;
  /** Entry point. Default src/cli.ts (bench/run.ts compiles its floor server with the same flags). */
  entry?: string;
}

/** The `bun build` arguments for one binary. */
export function compileArgs(options: CompileOptions = {}): string[] {
  const version = options.version ?? process.env.VERSION ?? pkg.version;
  const bytecode = options.bytecode ?? BYTECODE_DEFAULT;
  return [
    "build",
    "--compile",
    "--minify",
    // A user's .env or bunfig.toml must never change how the installed binary behaves.
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    "--define",
    `SKILLHUB_VERSION=${JSON.stringify(version)}`,
    // --bytecode defaults to CommonJS, which cannot hold src/cli.ts's top-level await.
    ...(bytecode ? ["--bytecode", "--format=esm"] : []),
    // One chunk per dynamic import(): a module the command does not import (the HTTP transport and web
    // page, other commands, git sync) is then never loaded. Without it the whole bundle loads on every start:
    // an entry that imports nothing took 38 ms instead of 13 with the app bundled in.
    "--splitting",
    ...(options.target ? [`--target=${options.target}`] : []),
    ...(options.executablePath ? [`--compile-executable-path=${options.executablePath}`] : []),
    ...(options.entry ? [options.entry] : ["src/cli.ts", ...WORKER_SCRIPTS]),
    "--outfile",
    options.outfile ?? "dist/skillhub",
  ];
}

/** Compile one binary; resolves to bun's exit code. `quiet` keeps bun's progress off the terminal. */
export async function compile(options: CompileOptions = {}, quiet = false): Promise<number> {
  const proc = Bun.spawn([process.execPath, ...compileArgs(options)], {
    cwd: ROOT,
    stdout: quiet ? "ignore" : "inherit",
    stderr: "inherit",
  });
  return await proc.exited;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      target: { type: "string" },
      outfile: { type: "string" },
      bytecode: { type: "boolean" },
      "no-bytecode": { type: "boolean" },
      version: { type: "string" },
      "executable-path": { type: "string" },
    },
  });
  const bytecode = values["no-bytecode"] ? false : values.bytecode;
  process.exit(await compile({ ...values, bytecode, executablePath: values["executable-path"] }));
}
