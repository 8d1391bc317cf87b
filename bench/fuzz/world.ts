import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adversarialSkills } from "./adversarial-text.ts";

/**
 * A hostile skill tree for the fuzz suite, with canaries: a file outside
 * every skill whose bytes must never be served, and secrets in the server's
 * environment that must never appear in any output.
 */
export interface FuzzWorld {
  root: string;
  skills: string;
  outside: string;
  /** Text of the file outside the skills; appears in no answer. */
  canaryFile: string;
  /** Environment of the server: secrets included. */
  env: Record<string, string>;
  /** Secret values that must appear nowhere (stdout, stderr, HTTP bodies). */
  secrets: string[];
  cleanup(): void;
}

export const CANARY_FILE = "FUZZ-CANARY-OUTSIDE-9c1e";

function write(path: string, text: string | Uint8Array): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
}

function skill(dir: string, name: string, body = `# ${name}\n\nDo ${name} things.\n`, extra = ""): void {
  write(join(dir, name, "SKILL.md"), `---\nname: ${name}\ndescription: Helps with ${name}.\n${extra}---\n\n${body}`);
}

export function buildWorld(): FuzzWorld {
  const root = mkdtempSync(join(tmpdir(), "skillhub-fuzz-"));
  const skills = join(root, "skills");
  const outside = join(root, "outside");
  write(join(outside, "secret.txt"), `${CANARY_FILE}\n`);
  // A skill linked in from outside is legitimate in a local folder (installers do it): it holds no canary.
  skill(outside, "private");
  // The target of the swaps: a SKILL.md-looking file outside every skill, holding the canary.
  write(join(outside, "notaskill", "SKILL.md"), `---\nname: victim\ndescription: swapped\n---\n${CANARY_FILE}\n`);
  skill(skills, "victim");
  write(join(skills, "victim/notes.txt"), "inside\n");
  skill(skills, "tools");
  write(join(skills, "tools/data.txt"), "needle\n");
  symlinkSync(join(outside, "secret.txt"), join(skills, "tools/escape.txt"));
  symlinkSync(outside, join(skills, "tools/outdir"));
  symlinkSync(join(outside, "private"), join(skills, "linked-private"));
  // Specials: a FIFO as a skill file, as a loose .md, and links to devices.
  mkdirSync(join(skills, "fifo-skill"));
  Bun.spawnSync(["mkfifo", join(skills, "fifo-skill/SKILL.md")]);
  Bun.spawnSync(["mkfifo", join(skills, "fifo.md")]);
  Bun.spawnSync(["mkfifo", join(skills, "tools/pipe")]);
  symlinkSync("/dev/zero", join(skills, "zero.md"));
  symlinkSync("/dev/urandom", join(skills, "tools/random.bin"));
  // Huge and pathological files.
  write(join(skills, "huge/SKILL.md"), `---\nname: huge\ndescription: big\n---\n${"x".repeat(3 * 1_048_576)}\n`);
  for (const c of adversarialSkills(256 * 1024)) write(join(skills, `yaml-${c.name}`, "SKILL.md"), c.text);
  write(
    join(skills, "bomb/SKILL.md"),
    `---\nname: bomb\ndescription: &a [*a, *a]\nx: &b [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n---\nbody\n`,
  );
  // A small tree with an asset and a script.
  write(join(skills, "_root.md"), "---\nkeywords: [root]\ndescription: Root node.\n---\nRoot.\n");
  write(
    join(skills, "deploy.md"),
    "---\nkeywords: [deploy, release]\ndescription: Deploys.\nassets:\n  - file: guide.md\n    type: reference\n---\nDeploy.\n",
  );
  write(join(skills, "deploy/guide.md"), "guide\n");
  symlinkSync(join(outside, "secret.txt"), join(skills, "deploy/leak.md"));
  const secrets = ["ghp_FUZZSECRET0000000001", "fuzz-http-token-0000002", "fuzz_pip_password_03"];
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(root, "home"),
    GITHUB_TOKEN: secrets[0] as string,
    OPENAI_API_KEY: secrets[1] as string,
    PIP_INDEX_URL: `https://fuzz:${secrets[2]}@pypi.example.invalid/simple`,
    SKILLHUB_ENABLE_COMMANDS: "1",
    ALLOWED_COMMANDS: "cat,ls,grep",
    SKILLHUB_TOOLS: "all",
    SKILLHUB_RESCAN_SECONDS: "1",
    LOG_LEVEL: "DEBUG",
  };
  mkdirSync(env.HOME, { recursive: true });
  return {
    root,
    skills,
    outside,
    canaryFile: CANARY_FILE,
    env,
    secrets,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
