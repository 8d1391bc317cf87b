import { mkdirSync, mkdtempSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { chmod, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { explicitLabels } from "../../src/sources/source-list.ts";

const made: string[] = [];

/**
 * A fresh temp folder, removed by `cleanupTemp()`: every test file that makes one, itself or
 * through a helper, ends with `afterAll(cleanupTemp)`.
 */
export function tempDir(prefix = "skillhub-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * Remove every temp folder made so far, with what the tests and the processes they started
 * wrote in them. Awaited, not left to a child process: `bun test` ends a test process when its
 * files are done, and a removal still running then is killed with it, leaving its folders. The
 * hook runs under the run's --timeout, as a test does.
 */
export async function cleanupTemp(): Promise<void> {
  await Promise.all(made.splice(0).map(removeTree));
}

/**
 * Remove a folder and everything in it. A folder a test left unreadable (mode 000) or read-only
 * stops the removal for a user other than root: every folder in the tree is then given back to its
 * owner and the removal tried again.
 */
async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
  } catch {
    await makeOwnerWritable(dir);
    await rm(dir, { recursive: true, force: true });
  }
}

/** chmod 700 on `dir` and on every folder under it. */
async function makeOwnerWritable(dir: string): Promise<void> {
  // Security: a symbolic link is never followed (a Dirent of a link is no directory): the tests plant
  // links to folders outside, and a chmod through one would change a folder that is not the test's.
  await chmod(dir, 0o700).catch(() => undefined);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  await Promise.all(entries.filter((e) => e.isDirectory()).map((e) => makeOwnerWritable(join(dir, e.name))));
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
