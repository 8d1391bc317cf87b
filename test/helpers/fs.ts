import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { explicitLabels } from "../../src/sources/source-list.ts";

const made: string[] = [];

/** A fresh temp folder, removed by `cleanupTemp()` (call it in afterAll/afterEach). */
export function tempDir(prefix = "skillhub-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * Remove every temp folder made so far, without waiting for it: some tests write thousands of
 * skill folders, and unlinking them in a hook took 3 s and more on a busy 2-core machine (past
 * Bun's hook timeout). One `rm -rf` child, not waited for, does it beside the next tests; it needs
 * no test process alive to finish. Where rm cannot start, they are removed here.
 */
export function cleanupTemp(): void {
  const dirs = made.splice(0);
  if (dirs.length === 0) return;
  try {
    Bun.spawn(["rm", "-rf", "--", ...dirs], { stdin: "ignore", stdout: "ignore", stderr: "ignore" }).unref();
  } catch {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** Write a file, creating its folders. */
export function write(path: string, text: string | Uint8Array): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

export interface SkillSpec {
  name?: string | null;
  description?: string | null;
  body?: string;
  /** Extra frontmatter lines, verbatim. */
  extra?: string;
}

/** Write `<root>/<folder>/SKILL.md`; name defaults to the folder's last segment. */
export function writeSkill(root: string, folder: string, spec: SkillSpec = {}): string {
  const name = spec.name === undefined ? folder.split("/").pop() : spec.name;
  const description = spec.description === undefined ? `Helps with ${name}.` : spec.description;
  const lines = ["---"];
  if (name !== null) lines.push(`name: ${name}`);
  if (description !== null) lines.push(`description: ${description}`);
  if (spec.extra) lines.push(spec.extra);
  lines.push("---", "", spec.body ?? `# ${name}\n\nInstructions for ${name}.\n`);
  return write(join(root, folder, "SKILL.md"), lines.join("\n"));
}

/** The label (and qualifier) a folder given with --skills-dir gets when it is the only one of its name. */
export function labelOfDir(dir: string): string {
  return explicitLabels([dir])[0] as string;
}

/**
 * Move `dir`'s mtime `seconds` ahead, as a change of its entries would. The kernel stamps a change with
 * a coarse clock (a few ms), so a folder changed within that tick of the stat that recorded it keeps its
 * mtime; a test that changes a folder's entries right after a scan says the change happened later.
 */
export function laterMtime(dir: string, seconds = 5): void {
  const at = new Date(statSync(dir).mtimeMs + seconds * 1000);
  utimesSync(dir, at, at);
}
