import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { PROJECT_CONFIG_FILE } from "../config/project-file.ts";
import { resolveProjectRoot } from "../sources/project-root.ts";
import type { CommandContext } from "./context.ts";

/** Where `skillhub add` records a source and `remove` takes it out. */
export interface SourceFile {
  /** The YAML file. */
  file: string;
  scope: "project" | "global";
  /** The project root (folders in the project's file are written relative to it). */
  projectDir: string | null;
  /** The comment a new file starts with. */
  header: string;
}

const PROJECT_HEADER = ` SkillHub sources of this project, written by \`skillhub add\` and \`skillhub remove\`.
 Commit this file with skillhub.lock: teammates and CI then serve the same skills.
 It may set git.repos and sources.dirs only; see docs/team.md.`;
const GLOBAL_HEADER = " SkillHub settings (docs/configuration.md); `skillhub add --global` adds sources here.";

/** The project root, as the server finds it at start (--project, CLAUDE_PROJECT_DIR, or the working folder). */
export function projectDirOf(ctx: CommandContext): string | null {
  return resolveProjectRoot({
    configured: ctx.config.sources.project,
    env: ctx.env,
    cwd: ctx.cwd,
    homeDir: ctx.homeDir,
  }).dir;
}

/**
 * The project's skillhub.yaml, or with `global` the user's ~/.skillhub/config.yaml. A string (the
 * sentence to print) when there is no project here and `global` was not asked for.
 */
export function sourceFile(ctx: CommandContext, global: boolean): SourceFile | string {
  const projectDir = projectDirOf(ctx);
  if (global) return { file: join(ctx.config.home, "config.yaml"), scope: "global", projectDir, header: GLOBAL_HEADER };
  if (!projectDir)
    return `there is no project here (${ctx.cwd} is the home, root or a system folder): run it in your project, pass --project DIR, or use --global for your own sources.`;
  return { file: join(projectDir, PROJECT_CONFIG_FILE), scope: "project", projectDir, header: PROJECT_HEADER };
}

/**
 * The enclosing git checkout's top folder when the project root is a folder inside it (the working
 * folder, when `add` runs in a subfolder): a client started at the top would not read this folder's file.
 */
export function enclosingCheckout(projectDir: string): string | undefined {
  if (isCheckout(projectDir)) return undefined;
  for (let dir = dirname(projectDir); dir !== dirname(dir); dir = dirname(dir))
    if (existsSync(join(dir, ".git"))) return dir;
  return undefined;
}

/** Whether `dir` is the top of a git checkout. */
export function isCheckout(dir: string): boolean {
  return existsSync(join(dir, ".git"));
}
