import type { ParsedArgs } from "../config/args.ts";
import { loadConfig } from "../config/load.ts";
import { projectSourcesAt, withProject } from "../config/project-file.ts";
import type { Resolved } from "../config/resolve.ts";
import { explicitSourceConfigFiles } from "../config/source-config.ts";
import { lockPath } from "../lock/location.ts";
import { lockedConfigs } from "../lock/pins.ts";
import { resolveProjectRoot } from "../sources/project-root.ts";

export interface SettingsInput {
  args: ParsedArgs;
  env: Record<string, string | undefined>;
  homeDir: string;
  cwd: string;
  /** trust.allowed_signers: the repository copies verified so far (none at start: GitSync.servesCopy). */
  verifiedCopy?: (copy: string) => boolean;
}

/**
 * Every layer of the configuration a command runs with: defaults, ~/.skillhub/config.yaml, --config,
 * the environment and the flags; the project's skillhub.yaml (its sources); then the config.yaml of
 * each synced repository and explicit skills folder. Throws ConfigError.
 */
export async function loadSettings(input: SettingsInput): Promise<Resolved> {
  const { args, env, homeDir, cwd, verifiedCopy } = input;
  const loadFiles = (
    sourceFiles?: string[],
    repoFiles?: string[],
    projectRepoFiles?: string[],
    lockedDigests?: ReadonlyMap<string, string | null>,
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
    });
  const first = loadFiles();
  // The project's skillhub.yaml (what `skillhub add` recorded), at the project root known at start: a
  // client's MCP roots come later and do not bring another project's sources.
  const projectDir = resolveProjectRoot({ configured: first.config.sources.project, env, cwd, homeDir }).dir;
  const project = projectSourcesAt(projectDir);
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
  const loaded = sourceFiles.length > 0 ? loadFiles(sourceFiles, repoFiles, projectRepoFiles, locked) : first;
  if (config.git.repos.length === 0) return withProject(loaded, project);
  const targets = await import("../refresh/repo-targets.ts");
  const resolved = withProject(targets.ownBranches(loaded, copies, env), project);
  resolved.warnings.push(...targets.overriddenPins(resolved.config.git));
  return resolved;
}
