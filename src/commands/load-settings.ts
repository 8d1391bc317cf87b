import { join } from "node:path";
import type { ParsedArgs } from "../config/args.ts";
import { loadConfig } from "../config/load.ts";
import { PROJECT_CONFIG_FILE, type ProjectSources, projectSourcesAt, withProject } from "../config/project-file.ts";
import type { Resolved } from "../config/resolve.ts";
import type { Config } from "../config/schema.ts";
import { explicitSourceConfigFiles } from "../config/source-config.ts";
import { lockPath } from "../lock/location.ts";
import { lockedConfigs } from "../lock/pins.ts";
import { resolveProjectRoot } from "../sources/project-root.ts";
import { type Diagnostic, diagnostic } from "../util/diagnostic.ts";
import { ConfigError } from "../util/errors.ts";
import type { CommandContext } from "./context.ts";

export interface SettingsInput {
  args: ParsedArgs;
  env: Record<string, string | undefined>;
  homeDir: string;
  cwd: string;
  /** trust.allowed_signers: the repository copies verified so far (none at start: GitSync.servesCopy). */
  verifiedCopy?: (copy: string) => boolean;
  /**
   * A project's skillhub.yaml that cannot be used: "stop" throws its ConfigError (default: the commands that
   * act on the file); "skip" leaves the whole file out and says why in `projectError` (servers, doctor).
   */
  projectFile?: "stop" | "skip";
}

/** The configuration, and the project's skillhub.yaml left out when it cannot be used (projectFile "skip"). */
export interface Settings extends Resolved {
  /** Why the project's skillhub.yaml is left out: an error diagnostic naming it, with the same sentence a command stops with. */
  projectError?: Diagnostic;
}

/** The command's context with the configuration read again from its files. */
export async function reloaded(ctx: CommandContext): Promise<CommandContext> {
  const { config, warnings } = await loadSettings(ctx);
  return { ...ctx, config, configWarnings: warnings };
}

/**
 * Every layer of the configuration a command runs with: defaults, ~/.skillhub/config.yaml, --config,
 * the environment and the flags; the project's skillhub.yaml (its sources); then the config.yaml of
 * each synced repository and explicit skills folder. Throws ConfigError.
 */
export async function loadSettings(input: SettingsInput): Promise<Settings> {
  const { args, env, homeDir, cwd, verifiedCopy } = input;
  const loadFiles = (
    sourceFiles?: string[],
    repoFiles?: string[],
    projectRepoFiles?: string[],
    lockedDigests?: ReadonlyMap<string, string | null>,
    followedBranches?: ReadonlyMap<string, string>,
  ) =>
    loadConfig({
      env,
      flags: args.flags,
      homeDir,
      cwd,
      configFile: args.options.config,
      sourceFiles,
      repoFiles,
      projectRepoFiles,
      lockedDigests,
      followedBranches,
    });
  const first = loadFiles();
  // The project's skillhub.yaml (what `skillhub add` recorded), at the project root known at start: a
  // client's MCP roots come later and do not bring another project's sources.
  const projectDir = resolveProjectRoot({ configured: first.config.sources.project, env, cwd, homeDir }).dir;
  const { project, projectError } = await projectSources(projectDir, first.config, input.projectFile ?? "stop");
  const withError = (resolved: Resolved): Settings => (projectError ? { ...resolved, projectError } : resolved);
  const { config } = withProject(first, project);
  // Skills folders' config.yaml: synced repositories' copies on disk, then the
  // explicit --skills-dir/SKILLS_DIR folders (highest precedence last). The source list depends on
  // the configuration, so this is a second pass; a config.yaml cannot add folders (source-config.ts).
  // A content repository the user configured may set more than a folder (source-config.ts); one the
  // project named, less than a folder (nothing that acts on the user's own sources). Git sync's modules are loaded only when repositories are
  // configured (a faster start).
  const place = { file: config.lock.file, projectDir, home: config.home, cwd };
  const copies =
    config.git.repos.length > 0
      ? (await import("../refresh/git/git-copies.ts")).repoConfigFiles(config, verifiedCopy, lockPath(place))
      : [];
  // Frozen: a repository's config.yaml applies only as the lock that pins it records it.
  const locked = config.lock.frozen && copies.length > 0 ? lockedConfigs(config, place, copies) : undefined;
  const repoFiles = copies.filter((c) => !c.project).map((c) => c.file);
  const projectRepoFiles = copies.filter((c) => c.project).map((c) => c.file);
  const sourceFiles = [...copies.map((c) => c.file), ...explicitSourceConfigFiles(config)];
  const followed = new Map(copies.filter((c) => c.project).map((c) => [c.file, c.branch]));
  const loaded = sourceFiles.length > 0 ? loadFiles(sourceFiles, repoFiles, projectRepoFiles, locked, followed) : first;
  if (config.git.repos.length === 0) return withError(withProject(loaded, project));
  const targets = await import("../refresh/repo-targets.ts");
  const resolved = withProject(targets.ownBranches(loaded, copies, env), project);
  resolved.warnings.push(...targets.overriddenPins(resolved.config.git));
  return withError(resolved);
}

/**
 * The project's skillhub.yaml, its repositories checked as a sync checks them (a folder out of the
 * repository, a URL that is an option), so that a wrong entry is the file's error before anything starts.
 * With "skip", a file that cannot be used is left out whole (not a part of it: what the rest would serve is
 * not what the project meant), and the error is returned as a diagnostic. Security: the project may be a
 * repository the user merely cloned; a server there must still serve the user's own skills.
 */
async function projectSources(
  projectDir: string | null,
  config: Config,
  mode: "stop" | "skip",
): Promise<{ project?: ProjectSources; projectError?: Diagnostic }> {
  try {
    const project = projectSourcesAt(projectDir);
    if (project && project.repos.length > 0)
      (await import("../refresh/repo-targets.ts")).repoTargets({
        repos: project.repos,
        branch: config.git.branch,
        home: config.home,
      });
    return { project };
  } catch (error) {
    if (mode === "stop" || !(error instanceof ConfigError) || !projectDir) throw error;
    const file = join(projectDir, PROJECT_CONFIG_FILE);
    return {
      projectError: diagnostic(
        "project-file",
        "error",
        file,
        `${error.message} The whole file is ignored: its repositories and folders are not served until it is fixed (skillhub sync, add, remove, lock, verify and sources stop on it).`,
      ),
    };
  }
}
