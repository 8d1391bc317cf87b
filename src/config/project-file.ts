import { existsSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { z } from "zod";
import { closeNames } from "../util/close-names.ts";
import { ConfigError } from "../util/errors.ts";
import { isMapping } from "../util/mapping.ts";
import { readConfigFile } from "./load.ts";
import { type Resolved, repoFrom } from "./resolve.ts";
import { type Config, JITLESS, RepoEntryConfig } from "./schema.ts";

/**
 * A project's own SkillHub file, beside its skillhub.lock: the sources the project adds
 * (`skillhub add`), committed so that every teammate and CI serves the same ones. It may set only
 * `git.repos` and `sources.dirs`: the project chooses its skills, the user keeps every other
 * setting. Its repositories come first (project before user) and get no GITHUB_TOKEN;
 * its folders must lie inside the project and are served as the project's own.
 */
export const PROJECT_CONFIG_FILE = "skillhub.yaml";

/** The keys a project's skillhub.yaml may set. */
export const PROJECT_KEYS = ["git.repos", "sources.dirs"] as const;

/**
 * Most repositories a project's skillhub.yaml may name; further entries are ignored with a warning.
 * Security: a server started in a project clones each one (up to git.max_repo_bytes each, 1 GiB), with
 * no command from the user: sixty entries naming one repository at sixty paths were sixty copies.
 */
export const MAX_PROJECT_REPOS = 16;

/**
 * Most folders a project's skillhub.yaml may add; further ones are ignored with a warning. Security: each is
 * walked at every scan (their folders count together against sources.max_dirs, scan-read.ts).
 */
export const MAX_PROJECT_DIRS = 32;

export interface ProjectSources {
  file: string;
  /** Repositories, each marked `scope: project`. */
  repos: RepoEntryConfig[];
  /** Absolute folders inside the project. */
  dirs: string[];
  /** Keys the file sets that it may not (ignored). */
  warnings: string[];
}

const Repos = () => z.array(z.union([z.string(), RepoEntryConfig()]));
const Dirs = () => z.array(z.string().min(1));

/**
 * Read and check `<projectDir>/skillhub.yaml`. Throws ConfigError naming the file, key and value.
 * Security: the file is read only inside the project, links followed, as a skills folder's config.yaml is
 * inside its folder: a `skillhub.yaml` linking to a file elsewhere (credentials) is refused unread, so no
 * warning or YAML error quotes its keys.
 */
export function readProjectFile(file: string, projectDir: string): ProjectSources {
  const data = readConfigFile(file, projectDir).data ?? {};
  const fail = (key: string, what: string, value?: unknown) =>
    new ConfigError(
      `Invalid configuration: ${file}: ${key}${value === undefined ? "" : ` = ${JSON.stringify(value)}`}: ${what}.`,
      { key, ...(value === undefined ? {} : { value: String(value) }) },
    );
  if (!isMapping(data)) throw fail("(top level)", "expected a mapping with git: repos: and sources: dirs:");
  const warnings: string[] = [];
  const picked: Record<(typeof PROJECT_KEYS)[number], unknown> = { "git.repos": undefined, "sources.dirs": undefined };
  for (const [section, value] of Object.entries(data)) {
    const children = isMapping(value) ? Object.entries(value) : [["", value] as const];
    for (const [child, childValue] of children) {
      const key = child ? `${section}.${child}` : section;
      if ((PROJECT_KEYS as readonly string[]).includes(key)) picked[key as keyof typeof picked] = childValue;
      else warnings.push(ignoredKey(file, key));
    }
  }
  const repos = Repos().safeParse(picked["git.repos"] ?? [], JITLESS);
  if (!repos.success)
    throw fail("git.repos", "expected a list of git URLs, or of mappings with url and optional ref, branch and path");
  const dirs = Dirs().safeParse(picked["sources.dirs"] ?? [], JITLESS);
  if (!dirs.success) throw fail("sources.dirs", "expected a list of folders inside the project");
  const root = resolve(projectDir);
  const listed = <T>(list: T[], max: number, key: string, what: string): T[] => {
    if (list.length <= max) return list;
    warnings.push(
      `${file}: ${key} names ${list.length} ${what}; only the first ${max} are used, the other ${list.length - max} ignored (a project's ${PROJECT_CONFIG_FILE} may name at most ${max}).`,
    );
    return list.slice(0, max);
  };
  const absolute = listed(dirs.data, MAX_PROJECT_DIRS, "sources.dirs", "folders").map((dir) => {
    const abs = resolve(root, dir);
    const rel = relative(root, abs);
    // Security: the project's file names the project's folders only, never one elsewhere on the machine.
    if (rel.startsWith("..") || isAbsolute(rel))
      throw fail("sources.dirs", "expected a folder inside the project", dir);
    return abs;
  });
  return {
    file,
    // Security: whatever an entry says, it is the project's (scope cannot be raised to the user's).
    // A local path is the project's, as its folders are: git runs in SkillHub's own folder.
    repos: listed(repos.data, MAX_PROJECT_REPOS, "git.repos", "repositories").map((item) => {
      const entry = typeof item === "string" ? { url: item } : item;
      return { ...entry, url: repoFrom(root, entry.url), scope: "project" };
    }),
    dirs: absolute,
    warnings,
  };
}

/** Why a key of the project's file is ignored: a misspelt one (`git.repo`) is named as the key meant. */
function ignoredKey(file: string, key: string): string {
  const [meant] = closeNames(key, PROJECT_KEYS, 1);
  if (meant !== undefined)
    return `${file}: unknown key "${key}" ignored. Did you mean "${meant}"? (a project's ${PROJECT_CONFIG_FILE} may set ${PROJECT_KEYS.join(" and ")})`;
  return `${file}: key "${key}" ignored: a project's ${PROJECT_CONFIG_FILE} may only set ${PROJECT_KEYS.join(" and ")} (other settings belong in ~/.skillhub/config.yaml or the environment).`;
}

/** The sources of the project at `projectDir` (none without a project or without its skillhub.yaml). */
export function projectSourcesAt(projectDir: string | null): ProjectSources | undefined {
  if (!projectDir) return undefined;
  const file = join(projectDir, PROJECT_CONFIG_FILE);
  return existsSync(file) ? readProjectFile(file, projectDir) : undefined;
}

/** A loaded configuration with the project's sources added, and the file's warnings before the others. */
export function withProject(resolved: Resolved, project: ProjectSources | undefined): Resolved {
  if (!project) return resolved;
  return {
    config: withProjectSources(resolved.config, project),
    warnings: [...project.warnings, ...resolved.warnings],
  };
}

/** `config` with a project's sources added: its repositories before the user's, its folders as project folders. */
export function withProjectSources(config: Config, project: ProjectSources): Config {
  return {
    ...config,
    git: { ...config.git, repos: [...project.repos, ...config.git.repos] },
    sources: { ...config.sources, project_dirs: [...project.dirs, ...config.sources.project_dirs] },
  };
}
