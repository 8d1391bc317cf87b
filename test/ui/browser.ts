import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { tempDir } from "../helpers/fs.ts";
import { HANG_MS } from "../helpers/wait.ts";

/** Debian's chromium package: the only browser the page's tests use (nothing is downloaded). */
export const CHROMIUM = "/usr/bin/chromium";
const ROOT = join(import.meta.dir, "..", "..");
export const SCREENSHOTS = join(ROOT, "test-output", "ui");

export function hasChromium(): boolean {
  return existsSync(CHROMIUM);
}

/**
 * dist/skillhub, rebuilt when any file under src/ is newer (the page's .html,
 * .css and .js are embedded too, so .ts files alone do not tell).
 */
export function freshBinary(): string {
  const bin = join(ROOT, "dist", "skillhub");
  const built = existsSync(bin) ? statSync(bin).mtimeMs : 0;
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((max, entry) => {
      const path = join(dir, entry.name);
      return Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
    }, 0);
  if (built < newest(join(ROOT, "src"))) {
    const proc = Bun.spawnSync([process.execPath, "scripts/build.ts"], {
      cwd: ROOT,
      stdout: "ignore",
      stderr: "inherit",
    });
    if (proc.exitCode !== 0) throw new Error("could not build dist/skillhub (run `make build` to see why)");
  }
  return bin;
}

/**
 * Headless Chromium with a fresh profile (a temp folder: the caller's test file ends with
 * `afterAll(cleanupTemp)`), no network features, no sandbox (containers, CI).
 */
export async function launchBrowser(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = tempDir("skillhub-chromium-");
  mkdirSync(SCREENSHOTS, { recursive: true });
  // launchPersistentContext owns --user-data-dir (Playwright refuses it in args): a fresh temp folder per run.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // No crash handler process: it outlives the browser and keeps the test runner's pipes open.
      "--disable-crash-reporter",
      "--disable-breakpad",
    ],
    viewport: { width: 1200, height: 900 },
    timeout: HANG_MS,
  });
  return {
    context,
    close: () => context.close().catch(() => undefined),
  };
}
