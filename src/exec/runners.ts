import { accessSync, constants, mkdirSync, statSync, writeFileSync } from "node:fs";
import { basename, isAbsolute, join } from "node:path";
import { errorMessage } from "../util/errors.ts";
import { absolutePathEntries } from "../util/path-env.ts";

/**
 * What runs a script (by extension, from `scripts.runners`) or a command
 * (run_skill_command): always an absolute executable path and an argv, never
 * a shell command line.
 */

/** The runner name that means "this very binary, acting as Bun". */
export const SELF_RUNNER = "skillhub";

export interface RunnerHost {
  /** The running executable: the skillhub binary, or bun when running from source. */
  execPath: string;
  /** An executable's absolute path on `PATH`, or null. Default: Bun.which over absolute PATH entries only. */
  which?: (command: string, path: string | undefined) => string | null;
  /** An empty Bun config file for the self runner (emptyBunConfig). Default /dev/null. */
  bunConfig?: () => string;
}

export interface Runner {
  /** Absolute executable, then its fixed arguments; the script or the command's arguments follow. */
  argv: string[];
  /** Variables the runner needs (BUN_BE_BUN=1 for the self runner). */
  env: Record<string, string>;
  /** How the configuration names it, for messages. */
  configured: string;
}

type Found = { ok: true; runner: Runner };
type NotFound = { ok: false; reason: "none" | "missing"; configured?: string; executable?: string };

export type RunnerLookup =
  | Found
  | NotFound
  /** The self runner's empty config file could not be made (SkillHub's home cannot be written). */
  | { ok: false; reason: "no-config"; configured: string; why: string };

/**
 * An empty Bun config file, given to the self runner so that a working folder's bunfig.toml is not read:
 * /dev/null, or on Windows (which has none) an empty file in SkillHub's home, emptied again if anything
 * wrote into it.
 */
export function emptyBunConfig(home: string, platform: NodeJS.Platform = process.platform): string {
  if (platform !== "win32") return "/dev/null";
  const file = join(home, "empty-bunfig.toml");
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile() || stat.size !== 0) {
    mkdirSync(home, { recursive: true });
    writeFileSync(file, "");
  }
  return file;
}

/**
 * The runner for a script extension (".ts") from `scripts.runners`. The value
 * is split on whitespace into an executable and fixed arguments ("npx tsx");
 * `skillhub` is the running binary with BUN_BE_BUN=1, so .ts and .js need
 * neither Node nor tsx (from source, execPath is bun itself, which runs them
 * the same way). `--no-env-file` and an empty `--config`: a .env or a
 * bunfig.toml in the working directory must not add variables or preload code
 * behind the server's back (a frozen server runs reviewed files only).
 * `--no-install`: where no node_modules folder holds an imported package, Bun would fetch it from the
 * registry at run time, its version chosen by any package.json above the skill, which no lock covers.
 */
export function scriptRunner(
  extension: string,
  runners: Readonly<Record<string, string>>,
  host: RunnerHost,
  path: string | undefined,
): RunnerLookup {
  const configured = (runners[extension] ?? runners[extension.toLowerCase()] ?? "").trim();
  if (configured === "") return { ok: false, reason: "none" };
  const [command = "", ...fixed] = configured.split(/\s+/);
  if (command === SELF_RUNNER) {
    let config: string;
    try {
      config = host.bunConfig?.() ?? "/dev/null";
    } catch (error) {
      return { ok: false, reason: "no-config", configured, why: errorMessage(error) };
    }
    return {
      ok: true,
      runner: {
        argv: [host.execPath, "--no-env-file", "--no-install", `--config=${config}`, ...fixed],
        env: { BUN_BE_BUN: "1" },
        configured,
      },
    };
  }
  const executable = findExecutable(command, path, host.which);
  if (!executable) return { ok: false, reason: "missing", configured, executable: command };
  return { ok: true, runner: { argv: [executable, ...fixed], env: {}, configured } };
}

/**
 * A command of run_skill_command → its argv prefix:
 * `python`/`python3` run as `uv run python` when uv is on PATH (PEP 723
 * inline dependencies), else as `python3`; any other name as itself.
 */
export function commandRunner(command: string, host: RunnerHost, path: string | undefined): Found | NotFound {
  if (command === "python" || command === "python3") {
    const uv = findExecutable("uv", path, host.which);
    if (uv) return { ok: true, runner: { argv: [uv, "run", "python"], env: {}, configured: "uv run python" } };
    const python = findExecutable("python3", path, host.which);
    if (python) return { ok: true, runner: { argv: [python], env: {}, configured: "python3" } };
    return { ok: false, reason: "missing", configured: command, executable: "uv or python3" };
  }
  const executable = findExecutable(command, path, host.which);
  if (!executable) return { ok: false, reason: "missing", configured: command, executable: command };
  return { ok: true, runner: { argv: [executable], env: {}, configured: command } };
}

/**
 * The programs scripts and commands start (from `scripts.runners`, and the allowed commands), each with a
 * name for it that is no path (`<program 'python3'>`): a configured path as written, even one that does not
 * exist; a name as `path` finds it now (`uv` for `python`, as commandRunner does); the self runner as the
 * running executable. Security: messages about a runner name its path, which a client on another machine
 * must not be told (server/server-paths.ts names these so in its answers).
 */
export function runnerPrograms(
  runners: Readonly<Record<string, string>>,
  commands: readonly string[],
  host: RunnerHost,
  path: string | undefined,
): Array<[path: string, name: string]> {
  const programs = new Map<string, string>();
  const add = (program: string | null | undefined) => {
    if (program && isAbsolute(program) && !programs.has(program))
      programs.set(program, `<program '${basename(program)}'>`);
  };
  for (const value of Object.values(runners)) {
    const [command = ""] = value.trim().split(/\s+/);
    add(
      command === SELF_RUNNER
        ? host.execPath
        : isAbsolute(command)
          ? command
          : findExecutable(command, path, host.which),
    );
  }
  for (const command of commands) {
    const found = commandRunner(command, host, path);
    if (found.ok) add(found.runner.argv[0]);
  }
  return [...programs];
}

/**
 * An executable's absolute path. A name is looked up on `path`; a configured
 * absolute path (an operator's choice in config.yaml) is taken as it is when
 * it is an executable file.
 */
export function findExecutable(
  command: string,
  path: string | undefined,
  which: RunnerHost["which"] = defaultWhich,
): string | null {
  if (command.includes("/") || command.includes("\\")) {
    if (!isAbsolute(command)) return null;
    try {
      if (!statSync(command).isFile()) return null;
      accessSync(command, constants.X_OK);
      return command;
    } catch {
      return null;
    }
  }
  return which(command, path);
}

/**
 * Bun.which over the absolute entries of PATH only.
 *
 * Security: an empty or relative PATH entry ("", ".", "bin") would be looked
 * up from the working directory, which is a skill's folder for
 * run_skill_command: a skill could ship its own `cat`. Such entries are skipped.
 */
export function defaultWhich(command: string, path: string | undefined): string | null {
  const entries = absolutePathEntries(path);
  if (entries === "") return null;
  return Bun.which(command, { PATH: entries });
}
