import { resolve, sep } from "node:path";

export interface ProjectRoot {
  /** Absolute project folder, or null when none applies. */
  dir: string | null;
  /** How it was found, for `doctor`. */
  how: string;
}

export interface ProjectRootInput {
  /** --project / SKILLHUB_PROJECT_DIR (already absolute). */
  configured?: string;
  env: Record<string, string | undefined>;
  /** URIs the client reported through MCP roots, if any. */
  roots?: readonly string[];
  cwd: string;
  homeDir: string;
}

/** `how` of a root that is the working directory (the last choice, and the one a subfolder gets). */
export const WORKING_DIRECTORY = "working directory";

// Claude Desktop starts servers in "/", some Windows clients in System32: never a project.
const SYSTEM_PREFIXES = [
  "/usr",
  "/bin",
  "/sbin",
  "/etc",
  "/System",
  "/Library",
  "/Applications",
  "/proc",
  "/sys",
  "/dev",
];

/** Project root, in the documented order (docs/skills.md). Pure. */
export function resolveProjectRoot(input: ProjectRootInput): ProjectRoot {
  if (input.configured) return { dir: resolve(input.configured), how: "--project / SKILLHUB_PROJECT_DIR" };
  const claude = input.env.CLAUDE_PROJECT_DIR;
  if (claude) return { dir: resolve(input.cwd, claude), how: "CLAUDE_PROJECT_DIR (set by Claude Code)" };
  const root = firstFileRoot(input.roots ?? []);
  if (root) return { dir: root, how: "MCP roots (first file:// root the client reported)" };
  if (isProjectCandidate(input.cwd, input.homeDir)) return { dir: resolve(input.cwd), how: WORKING_DIRECTORY };
  return {
    dir: null,
    how: `none: the working directory ${input.cwd} is the home, root or a system folder; pass --project DIR to use project skills`,
  };
}

export function firstFileRoot(uris: readonly string[]): string | undefined {
  for (const uri of uris) {
    if (!uri.startsWith("file://")) continue;
    try {
      return Bun.fileURLToPath(uri);
    } catch {
      // A malformed URI from a client is not ours to crash on.
    }
  }
  return undefined;
}

export function isProjectCandidate(dir: string, homeDir: string): boolean {
  const abs = resolve(dir);
  if (abs === sep || abs === resolve(homeDir)) return false;
  if (/^[A-Za-z]:\\?$/.test(abs) || /^[A-Za-z]:\\Windows(\\|$)/i.test(abs)) return false;
  return !SYSTEM_PREFIXES.some((prefix) => abs === prefix || abs.startsWith(`${prefix}/`));
}
