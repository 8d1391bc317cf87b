import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { isMapping } from "../util/mapping.ts";
import type { ConfigFile } from "./resolve.ts";
import type { Config } from "./schema.ts";

/**
 * The sections a skills folder's own `config.yaml` may set (the skill-tree
 * sections, plus `git` and the `content` size limit). Server, source and
 * command settings stay with the user (flags, environment,
 * ~/.skillhub/config.yaml): a folder of skills, possibly synced from a team
 * repository, must not open an HTTP port, enable run_skill_command or add
 * folders.
 */
export const SOURCE_CONFIG_SECTIONS: readonly string[] = [
  "matching",
  "refresh",
  "scripts",
  "assets",
  "analytics",
  "git",
  "content",
];

/**
 * The `scripts` keys that decide which program runs and for which files. Security: they are the
 * operator's alone (~/.skillhub/config.yaml, --config, environment, flags). A runner is split into an
 * executable and its arguments (exec/runners.ts), so a config.yaml that set `scripts.runners` (".sh":
 * "bash -c …") would choose the code every script runs as, and one that set
 * `scripts.allowed_extensions` would let more kinds of file run; neither file is in the lock, so a
 * frozen server would run code nobody reviewed.
 */
const SCRIPT_EXECUTION_KEYS = ["scripts.allow_project", "scripts.runners", "scripts.allowed_extensions"] as const;

/**
 * Keys inside those sections that stay with the user. Security: a skills
 * folder named with --skills-dir / SKILLS_DIR may sit inside any checkout, so
 * its config.yaml must not replace the list of repositories synced
 * (git.repos), their branch or credentials, nor choose where usage events go
 * (analytics.file could name ~/.bashrc and append lines holding user queries;
 * analytics.endpoint would send them to any server), nor what runs scripts.
 */
export const SOURCE_CONFIG_FORBIDDEN_KEYS: readonly string[] = [
  "git.repos",
  "git.token",
  "git.branch",
  // A repository must not choose its own pin: the user's lock and config do.
  "git.ref",
  // Nor raise the limit on what it may bring onto the user's disk.
  "git.max_repo_bytes",
  "analytics.file",
  "analytics.endpoint",
  ...SCRIPT_EXECUTION_KEYS,
];

/**
 * The content repository the user configured (SKILLS_REPO /
 * `git.repos`) is the team's own, chosen by the user, so its config.yaml may
 * also set where the team's usage events go and which branch is followed.
 * It still cannot change the list of repositories, their token, let a
 * project's own scripts run, or choose what runs scripts.
 */
export const REPO_CONFIG_FORBIDDEN_KEYS: readonly string[] = [
  "git.repos",
  "git.token",
  // Security: a repository never chooses its own pin; the user (SKILLS_REF, their config) and the lock do.
  "git.ref",
  // Security: nor the limit on what it may bring onto the user's disk (a small commit could lift it for the next).
  "git.max_repo_bytes",
  ...SCRIPT_EXECUTION_KEYS,
];

/**
 * Keys that act on every source, the user's own included: background sync of every repository, and the
 * limits of every asset read and script run. Security: a repository a project's skillhub.yaml names is the
 * project's choice (a repository the user merely opened can name one), so its config.yaml may not set them:
 * it could turn off the sync of the user's own repositories, let every script run for a day, or have one
 * get_asset call hold gigabytes, turn off get_skill's truncation, flush the user's analytics every 50 ms, or
 * switch off the user's scripts, analytics or skill-tree matches (matching applies to the whole catalog).
 * Lowering is refused too: a one-second timeout would break the user's own scripts just the same.
 */
const SERVER_WIDE_KEYS = [
  "refresh.enabled",
  "refresh.interval_minutes",
  "scripts.enabled",
  "scripts.timeout_seconds",
  "scripts.max_output_bytes",
  "assets.max_size_bytes",
  "assets.inline_text_max_bytes",
  "content.max_tokens",
  "analytics.enabled",
  "analytics.flush_seconds",
  "analytics.max_queue",
  "matching.min_score",
  "matching.max_results",
  "matching.ambiguity_threshold",
] as const;

/** A repository a project's skillhub.yaml names: a skills folder's limits, and none of SERVER_WIDE_KEYS. */
export const PROJECT_REPO_CONFIG_FORBIDDEN_KEYS: readonly string[] = [
  ...SOURCE_CONFIG_FORBIDDEN_KEYS,
  ...SERVER_WIDE_KEYS,
];

/**
 * Keys a skill-tree config.yaml may carry that SkillHub does not implement, with the reason; a
 * file that sets one loads, with this warning (never an error).
 */
export const UNSUPPORTED_KEYS: Readonly<Record<string, string>> = {
  "git.sparse_checkout":
    "SkillHub keeps a shallow, single-branch clone and reads only its skills/ folder and config.yaml, so a sparse checkout would save no network and little disk",
};

/**
 * Where a source config file comes from: a content repository the user configured, one a project's
 * skillhub.yaml names (fewer rights than a skills folder), or a skills folder (--skills-dir, SKILLS_DIR:
 * the user names it). A project's own folders (.agents, .claude, its skillhub.yaml's) carry no config.yaml.
 */
export type SourceConfigOrigin = "repository" | "project-repository" | "folder";

/** Whose config.yaml it is, as a warning names it. */
const WHOSE: Record<SourceConfigOrigin, string> = {
  repository: "a content repository's config.yaml",
  "project-repository": "a repository the project's skillhub.yaml names: its config.yaml",
  folder: "a skills folder's config.yaml",
};

/** The keys of the allowed sections each origin's config.yaml may not set. */
const FORBIDDEN: Record<SourceConfigOrigin, readonly string[]> = {
  repository: REPO_CONFIG_FORBIDDEN_KEYS,
  "project-repository": PROJECT_REPO_CONFIG_FORBIDDEN_KEYS,
  folder: SOURCE_CONFIG_FORBIDDEN_KEYS,
};

export const SOURCE_CONFIG_FILE = "config.yaml";

/**
 * `config.yaml` at the root of each explicit skills folder (--skills-dir,
 * then SKILLS_DIR, then sources.dirs), lowest precedence first: the first folder wins for skill
 * names, so its settings win too. The default folders (.agents, .claude,
 * ~/.skillhub/skills) carry none: ~/.skillhub/config.yaml is the user's file.
 */
export function explicitSourceConfigFiles(config: Config, exists: (path: string) => boolean = existsSync): string[] {
  return [...config.sources.dirs]
    .reverse()
    .map((dir) => join(dir, SOURCE_CONFIG_FILE))
    .filter((path) => exists(path));
}

/**
 * Keep only the allowed sections and keys of a source's config.yaml; say what
 * was dropped. A repository's `analytics.file` must name a `.jsonl` file, and
 * only its file name is used, inside `analyticsDir` (SkillHub's analytics
 * folder): events, which hold search queries, never go to a file elsewhere. Pure.
 */
export function restrictSourceConfig(
  file: ConfigFile,
  origin: SourceConfigOrigin = "folder",
  analyticsDir = "analytics",
): { file: ConfigFile; warnings: string[] } {
  const data = file.data;
  if (!isMapping(data)) return { file, warnings: [] };
  const forbidden = FORBIDDEN[origin];
  const who = WHOSE[origin];
  const kept: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (!SOURCE_CONFIG_SECTIONS.includes(key)) {
      warnings.push(`${file.path}: key "${key}" ignored: ${who} may only set ${SOURCE_CONFIG_SECTIONS.join(", ")}.`);
      continue;
    }
    if (!isMapping(value)) {
      // A wrong type is reported by the schema, naming the file.
      kept[key] = value;
      continue;
    }
    const section: Record<string, unknown> = {};
    for (const [child, childValue] of Object.entries(value)) {
      const dotted = `${key}.${child}`;
      if (origin === "project-repository" && dotted === "git.branch") {
        const branch = typeof childValue === "string" ? childValue : "BRANCH";
        warnings.push(
          `${file.path}: key "git.branch" ignored: a repository the project's skillhub.yaml names follows the branch its entry there gives; \`skillhub add URL#${branch}\` writes that branch in it.`,
        );
      } else if (forbidden.includes(dotted)) {
        warnings.push(
          `${file.path}: key "${dotted}" ignored: ${who} may not set ${forbidden.join(", ")} (they belong in ~/.skillhub/config.yaml or the environment).`,
        );
      } else if (dotted === "scripts.enabled" && childValue === true) {
        // Security: the kill switch works one way: a team may turn its scripts off for everyone, but a
        // config.yaml must not turn run_script back on where the operator turned it off. `true` is the
        // default, so dropping it changes nothing else, and a copied sample config is not warned about.
      } else if (dotted === "analytics.file" && typeof childValue === "string") {
        const kept = analyticsFileIn(childValue, analyticsDir);
        if (kept.warning) warnings.push(`${file.path}: key "analytics.file" ${kept.warning}`);
        if (kept.file !== undefined) section[child] = kept.file;
      } else section[child] = childValue;
    }
    kept[key] = section;
  }
  return dropUnsupportedKeys({ path: file.path, data: kept }, warnings);
}

/**
 * Where a repository's `analytics.file` is written: its file name, inside `analyticsDir`. Security: a
 * repository must not choose a file elsewhere (another tool's `history.jsonl` received events, search
 * queries included), so folders, `..` and `~` are dropped, with a warning saying where events go. Pure.
 */
function analyticsFileIn(value: string, analyticsDir: string): { file?: string; warning?: string } {
  const text = value.trim();
  if (!/\.jsonl$/i.test(text))
    return {
      warning: `ignored: ${JSON.stringify(value)} does not end in .jsonl (events are appended as JSON lines; name a .jsonl file).`,
    };
  const name = basename(text.replace(/\\/g, "/"));
  // Security: a NUL byte or a name of dots only is not a file name.
  if (name.includes("\0") || /^\.+$/.test(name))
    return { warning: `ignored: ${JSON.stringify(value)} is not a file name.` };
  const file = join(analyticsDir, name);
  if (name === text) return { file };
  return {
    file,
    warning: `${JSON.stringify(value)} is written as ${file}: a repository's usage events stay in SkillHub's analytics folder.`,
  };
}

/** Remove UNSUPPORTED_KEYS from any config file, each with its reason as a warning. Pure. */
export function dropUnsupportedKeys(
  file: ConfigFile,
  warnings: string[] = [],
): { file: ConfigFile; warnings: string[] } {
  const data = file.data;
  if (!isMapping(data)) return { file, warnings };
  const copy: Record<string, unknown> = { ...data };
  for (const [dotted, reason] of Object.entries(UNSUPPORTED_KEYS)) {
    const [section, key] = dotted.split(".") as [string, string];
    const value = copy[section];
    if (!isMapping(value) || !Object.hasOwn(value, key)) continue;
    const { [key]: _, ...rest } = value;
    copy[section] = rest;
    warnings.push(`${file.path}: key "${dotted}" ignored: not supported (${reason}).`);
  }
  return { file: { path: file.path, data: copy }, warnings };
}
