import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const made: string[] = [];

/** A fresh temp folder, removed by `cleanupTemp()` (call it in afterAll/afterEach). */
export function tempDir(prefix = "skillhub-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function cleanupTemp(): void {
  while (made.length > 0) rmSync(made.pop() as string, { recursive: true, force: true });
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
