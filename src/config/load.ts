import { existsSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { ConfigError } from "../util/errors.ts";
import { yaml } from "../util/lazy-yaml.ts";
import { isMapping } from "../util/mapping.ts";
import { readNamedText } from "../util/named-file.ts";
import { program } from "../util/program-name.ts";
import { yamlErrorAt } from "../util/yaml-error.ts";
import { realPathOf } from "./repository-copies.ts";
import { type ConfigFile, type Resolved, resolveConfig } from "./resolve.ts";
import { BRANCH_NAME } from "./schema-values.ts";
import { dropUnsupportedKeys, restrictSourceConfig } from "./source-config.ts";

export interface LoadOptions {
  env: Record<string, string | undefined>;
  flags?: Record<string, unknown>;
  homeDir: string;
  cwd: string;
  /** --config FILE: read after ~/.skillhub/config.yaml, must exist. */
  configFile?: string;
  /** Config files found at source roots, lowest precedence first; only their skill-tree sections apply. */
  sourceFiles?: string[];
  /** Those of `sourceFiles` that belong to a content repository the user configured (SKILLS_REPO): they may set more. */
  repoFiles?: readonly string[];
  /** Those of `sourceFiles` that belong to a repository the project's skillhub.yaml names: less than a folder's rights, said so. */
  projectRepoFiles?: readonly string[];
  /** The branch each of `projectRepoFiles`' repositories follows (its entry's), by file. */
  followedBranches?: ReadonlyMap<string, string>;
  /**
   * Frozen: for each repository's file of `sourceFiles`, the digest skillhub.lock records for it (null: the
   * lock records none). Such a file applies only when the bytes read are those; else it is ignored, said so.
   */
  lockedDigests?: ReadonlyMap<string, string | null>;
}

/** What loadConfig resolved, and the branch each content repository's config.yaml says it publishes. */
export interface Loaded extends Resolved {
  /**
   * A content repository's `git.branch`, by the path of the config.yaml that sets it: the branch of that
   * repository alone (ownBranches in refresh/repo-targets.ts), never the default of the others.
   */
  repoBranches: ReadonlyMap<string, string>;
}

/** The thin shell around resolveConfig: finds and reads the config files. */
export function loadConfig(options: LoadOptions): Loaded {
  const base = {
    env: options.env,
    flags: options.flags,
    homeDir: options.homeDir,
    cwd: options.cwd,
    pathDelimiter: delimiter,
    realPath: realPathOf,
  };
  // First pass: only where SkillHub's home (and so its config file) is. Every other value is judged once,
  // with the files, so that all that is wrong is named together.
  const { config: first } = resolveConfig({
    ...base,
    env: { SKILLHUB_HOME: options.env.SKILLHUB_HOME },
    flags: options.flags?.home === undefined ? {} : { home: options.flags.home },
  });
  const files: ConfigFile[] = [];
  const homeFile = join(first.home, "config.yaml");
  const sourceWarnings: string[] = [];
  /** The skills folders' and repositories' files: someone else's content. */
  const others = new Set<string>();
  const branches = new Map<string, string>();
  if (existsSync(homeFile)) files.push(userFile(homeFile, sourceWarnings));
  for (const path of options.sourceFiles ?? []) {
    const origin = options.repoFiles?.includes(path)
      ? "repository"
      : options.projectRepoFiles?.includes(path)
        ? "project-repository"
        : "folder";
    // Security: a skills folder's or repository's file is someone else's content: it stays in its folder,
    // and one that cannot be read safely (a link to /dev/zero, a FIFO, too large) or parsed as a mapping
    // is skipped, not fatal.
    const read = readSourceConfigFile(path, options.lockedDigests?.get(path));
    if (read === "missing") continue;
    if (typeof read === "string") {
      sourceWarnings.push(`${read} Its settings are ignored.`);
      continue;
    }
    // A project's entry that follows the branch its repository's config.yaml names ignores nothing.
    const followed = origin === "project-repository" ? options.followedBranches?.get(path) : undefined;
    const unbranched = followed === undefined ? undefined : ownBranch(read, []);
    const restricted = restrictSourceConfig(
      unbranched?.branch === followed && unbranched ? unbranched.file : read,
      origin,
      join(first.home, ANALYTICS_FOLDER),
    );
    sourceWarnings.push(...restricted.warnings);
    // Security: a repository's branch is its own, not every repository's default: merged, one repository
    // could move the others to a branch of its choosing (an old commit of theirs), dropping their pins.
    const own = origin === "repository" ? ownBranch(restricted.file, sourceWarnings) : { file: restricted.file };
    if (own.branch !== undefined) branches.set(path, own.branch);
    files.push(own.file);
    others.add(path);
  }
  if (options.configFile !== undefined) {
    if (!existsSync(options.configFile)) {
      throw new ConfigError(`Invalid configuration: --config ${options.configFile}: no such file.`, {
        key: "--config",
        value: options.configFile,
      });
    }
    files.push(userFile(options.configFile, sourceWarnings));
  }
  const { resolved, ignored } = resolveIgnoring(base, files, others, sourceWarnings);
  for (const file of ignored) branches.delete(file);
  return { ...resolved, warnings: [...sourceWarnings, ...resolved.warnings], repoBranches: branches };
}

/**
 * A content repository's file without its `git.branch`, and that branch when it is one git accepts (else a
 * warning, and the repository follows the branch it would without it).
 */
function ownBranch(file: ConfigFile, warnings: string[]): { file: ConfigFile; branch?: string } {
  const git = isMapping(file.data) ? file.data.git : undefined;
  if (!isMapping(git) || !("branch" in git)) return { file };
  const { branch, ...rest } = git;
  const data = { ...(file.data as Record<string, unknown>), git: rest };
  if (typeof branch === "string" && BRANCH_NAME.test(branch)) return { file: { ...file, data }, branch };
  warnings.push(`${file.path}: git.branch = ${JSON.stringify(branch)}: expected a branch name; it is ignored.`);
  return { file: { ...file, data } };
}

/**
 * Resolve `files`; a wrong value in one of `others` (someone else's file) makes that file ignored with a
 * warning, and the rest is resolved again: the server starts. One resolve when every value is right; a
 * wrong value anywhere else (the user's own file, the environment, a flag) stops start-up, naming it.
 */
function resolveIgnoring(
  base: Omit<Parameters<typeof resolveConfig>[0], "files">,
  files: ConfigFile[],
  others: ReadonlySet<string>,
  warnings: string[],
): { resolved: Resolved; ignored: string[] } {
  const ignored: string[] = [];
  for (let kept = files; ; ) {
    try {
      return { resolved: resolveConfig({ ...base, files: kept }), ignored };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      // Someone else's file with a wrong value is set aside first: its first problem is said, and the rest
      // is resolved again (what stops the start is then only the user's own).
      const problems = (error.details.problems ?? []) as { message: string; file?: unknown }[];
      const theirs = problems.find((p) => typeof p.file === "string" && others.has(p.file));
      if (theirs === undefined) throw error;
      const file = theirs.file as string;
      warnings.push(`${theirs.message.replace(/^Invalid configuration: /, "")} ${file}'s settings are ignored.`);
      kept = kept.filter((f) => f.path !== file);
      ignored.push(file);
    }
  }
}

/**
 * The user's own file: every key applies, except the unsupported ones (dropped with their reason). Its
 * repositories are marked as the user's own (`scope: user`): the user's lock pins them, never a project's.
 */
function userFile(path: string, warnings: string[]): ConfigFile {
  const dropped = dropUnsupportedKeys(readConfigFile(path));
  warnings.push(...dropped.warnings);
  return ownRepos(dropped.file);
}

/**
 * `file` with each `git.repos` entry marked `scope: user` (a URL becomes `{ url, scope }`); an entry that
 * already says `scope: project` keeps it, and anything that is not an entry is left for the schema to name.
 */
function ownRepos(file: ConfigFile): ConfigFile {
  const git = isMapping(file.data) ? file.data.git : undefined;
  if (!isMapping(git) || !Array.isArray(git.repos)) return file;
  const repos = git.repos.map((repo: unknown) =>
    typeof repo === "string"
      ? { url: repo, scope: "user" }
      : isMapping(repo) && repo.scope === undefined
        ? { ...repo, scope: "user" }
        : repo,
  );
  return { ...file, data: { ...(file.data as Record<string, unknown>), git: { ...git, repos } } };
}

/** Largest config.yaml read; a larger one is refused (the whole schema fits in a few kilobytes). */
export const MAX_CONFIG_BYTES = 1_048_576;

/** Where a content repository's `analytics.file` must live, under SkillHub's home (source-config.ts). */
export const ANALYTICS_FOLDER = "analytics";

/**
 * The user's own config file (~/.skillhub/config.yaml, --config), or a project's skillhub.yaml: any problem
 * throws a ConfigError naming the file. `within`: a folder the file must resolve inside, links followed (a
 * project's file, which is the project's content: a link to `~/.aws/credentials` must not have its keys read).
 */
export function readConfigFile(path: string, within?: string): ConfigFile {
  // Bounded and non-blocking (util/named-file.ts): a link to /dev/zero or a FIFO is named, not read for ever.
  const read = readNamedText({ path, maxBytes: MAX_CONFIG_BYTES, within });
  if (!read.ok) throw new ConfigError(`Invalid configuration: ${read.reason}`, { key: path });
  const parsed = parseConfigText(path, read.text);
  if (typeof parsed === "string") throw new ConfigError(`Invalid configuration: ${parsed}`, { key: path });
  return parsed;
}

/**
 * A skills folder's or repository's config.yaml: parsed, or "missing", or why it is ignored (a sentence
 * naming the file). Security: the file is someone else's content, so nothing in it stops start-up: it must
 * resolve inside its own folder, and one that cannot be read safely, is not valid YAML or does not hold a
 * mapping is skipped with that sentence as a warning, and every skill is still served (so is one holding a
 * wrong value: loadConfig).
 */
function readSourceConfigFile(path: string, locked?: string | null): ConfigFile | "missing" | string {
  const read = readNamedText({ path, maxBytes: MAX_CONFIG_BYTES, within: dirname(path) });
  // Security: frozen, a repository's settings are those of the locked commit, checked on the very bytes
  // parsed: a file changed in the copy (by whoever can write it) must not choose where usage events and
  // queries go, nor how skills are matched; nor may one removed (or replaced by a link to nothing) drop the
  // locked settings without a word.
  if (!read.ok) {
    if (!read.missing) return read.reason;
    if (typeof locked !== "string") return "missing";
    return `${path} is missing (deleted, or a link to nothing), but skillhub.lock records one for its repository (${locked.slice(0, 19)}… recorded): run \`${program()} sync --frozen\` to put the locked commit's file back.`;
  }
  if (locked !== undefined && `sha256:${read.sha256}` !== locked)
    return `${path} is not the one skillhub.lock records for its repository (${locked === null ? "it records none" : `${locked.slice(0, 19)}… recorded`}, sha256:${read.sha256.slice(0, 12)}… here): ${locked === null ? `review it and run \`${program()} lock\` to record it` : `run \`${program()} sync --frozen\` to put the locked commit's file back, or review it and run \`${program()} lock\``}.`;
  const parsed = parseConfigText(path, read.text);
  if (typeof parsed === "string") return parsed;
  // An empty file (or comments only) sets nothing; a list or a scalar is not a set of settings.
  const data = parsed.data;
  if (data === null || data === undefined || (typeof data === "object" && !Array.isArray(data))) return parsed;
  const what = Array.isArray(data) ? "a list" : `a ${typeof data}`;
  return `${path} must hold a YAML mapping of settings, not ${what}.`;
}

/** Most aliases (`*name`) one config file may expand: a few keep a file short, thousands are a YAML bomb. */
export const MAX_CONFIG_ALIASES = 100;

/** The file's YAML, or a sentence naming the file and where the YAML is wrong. Pure. */
function parseConfigText(path: string, text: string): ConfigFile | string {
  try {
    return { path, data: yaml().parse(text, { maxAliasCount: MAX_CONFIG_ALIASES }) };
  } catch (error) {
    return `${path} is not valid YAML: ${configYamlError(error, text)}.`;
  }
}

/** What is wrong with a config file's YAML, in the file's terms: the key written twice, the aliases expanded. */
function configYamlError(error: unknown, text: string): string {
  const { code, linePos } = error as { code?: string; linePos?: { line: number; col: number }[] };
  const at = linePos?.[0];
  if (code === "DUPLICATE_KEY" && at) {
    const key = /^\s*(?:-\s+)?(["']?)([^"':]+)\1\s*:/.exec(text.split("\n")[at.line - 1]?.slice(at.col - 1) ?? "")?.[2];
    if (key !== undefined)
      return `the key "${key.trim()}" is written twice in the same mapping (again at line ${at.line}, column ${at.col}); keep one`;
  }
  if (error instanceof ReferenceError && /alias count/i.test(error.message))
    return `its aliases (*name) expand to more than ${MAX_CONFIG_ALIASES} copies; write the values out instead`;
  return yamlErrorAt(error, text);
}
