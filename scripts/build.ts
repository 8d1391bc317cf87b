/**
 * Build dist/skillhub (or OUT for a --target), the one place the compile flags live.
 * Usage: bun scripts/build.ts [--target bun-linux-x64] [--outfile PATH] [--bytecode]
 */
import { parseArgs } from "node:util";
import pkg from "../package.json" with { type: "json" };

const { values } = parseArgs({
  options: { target: { type: "string" }, outfile: { type: "string" }, bytecode: { type: "boolean" }, version: { type: "string" } },
});
const version = values.version ?? process.env.VERSION ?? pkg.version;
const args = [
  "build",
  "--compile",
  "--minify",
  // A user's .env or bunfig.toml must never change how the installed binary behaves.
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  "--define",
  `SKILLHUB_VERSION=${JSON.stringify(version)}`,
  ...(values.bytecode ? ["--bytecode"] : []),
  ...(values.target ? [`--target=${values.target}`] : []),
  "src/cli.ts",
  "--outfile",
  values.outfile ?? "dist/skillhub",
];
const proc = Bun.spawnSync([process.execPath, ...args], { cwd: `${import.meta.dir}/..`, stdout: "inherit", stderr: "inherit" });
process.exit(proc.exitCode ?? 1);
