import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";

afterAll(cleanupTemp);

const ROOT = join(import.meta.dir, "..", "..");

/**
 * The Node built-ins the stdio server loads before it answers `initialize`. Each one Bun loads costs
 * start-up time (node:crypto about 0.9 ms, node:url 0.5, node:os 0.4), so a new one here
 * should be loaded where it is used (a dynamic import or require) unless initialize needs it.
 */
const ALLOWED = ["fs", "fs/promises", "path", "process"];

/** Every chunk `skillhub serve` loads statically: the entry's imports, then the serve command's. */
function serveChunks(dir: string): string[] {
  const entry = "cli.js";
  const serve = readdirSync(dir).find((f) => f.startsWith("serve-"));
  if (!serve) throw new Error("no serve chunk: is the command still loaded with import()?");
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(dir, file), "utf8");
    for (const m of text.matchAll(/^import\s*(?:[^;]*?\sfrom\s*)?"\.\/([^"]+)"/gms)) walk(m[1] as string);
  };
  walk(entry);
  walk(serve);
  return [...seen];
}

describe("start-up", () => {
  test("the stdio server loads no Node built-in beyond fs, path and process before initialize", async () => {
    const outdir = tempDir("skillhub-chunks-");
    const built = await Bun.build({
      entrypoints: [join(ROOT, "src/cli.ts")],
      outdir,
      splitting: true,
      format: "esm",
      target: "bun",
      // As `bun build --splitting` names them: a dynamically imported module's chunk carries its name.
      naming: { chunk: "[name]-[hash].[ext]" },
    });
    expect(built.success).toBe(true);
    const builtins = new Set<string>();
    for (const file of serveChunks(outdir)) {
      const text = readFileSync(join(outdir, file), "utf8");
      for (const m of text.matchAll(/^import\s*(?:[^;]*?\sfrom\s*)?"(?:node:)?([a-z_/]+)"/gms))
        builtins.add(m[1] as string);
    }
    expect([...builtins].filter((b) => !ALLOWED.includes(b)).sort()).toEqual([]);
  });
});
