import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ConfigFile } from "./resolve.ts";
import type { Config } from "./schema.ts";

/**
 * The sections a skills folder's own `config.yaml` may set (seed 003 §11.2,
 * plus seed 002's `git`). Server, source and command settings stay with the
 * user (flags, environment, ~/.skillhub/config.yaml): a folder of skills,
 * possibly synced from a team repository, must not open an HTTP port,
 * enable run_skill_command or add folders.
 */
export const SOURCE_CONFIG_SECTIONS: readonly string[] = [
  "matching",
  "refresh",
  "scripts",
  "assets",
  "analytics",
  "git",
];

/**
 * Keys inside those sections that stay with the user too. Security: a synced
 * repository's config.yaml must not replace the list of repositories synced
 * (git.repos), their branch or credentials, nor choose where usage events go
 * (analytics.file could name ~/.bashrc and append lines holding user queries;
 * analytics.endpoint would send them to any server).
 */
export const SOURCE_CONFIG_FORBIDDEN_KEYS: readonly string[] = [
  "git.repos",
  "git.token",
  "git.branch",
  // A repository must not choose its own pin (issue 17): the user's lock and config do.
  "git.ref",
  "analytics.file",
  "analytics.endpoint",
  "scripts.allow_project",
];

export const SOURCE_CONFIG_FILE = "config.yaml";

/**
 * `config.yaml` at the root of each explicit skills folder (--skills-dir,
 * then SKILLS_DIR), lowest precedence first: the first folder wins for skill
 * names, so its settings win too. The default folders (.agents, .claude,
 * ~/.skillhub/skills) carry none: ~/.skillhub/config.yaml is the user's file.
 */
export function explicitSourceConfigFiles(config: Config, exists: (path: string) => boolean = existsSync): string[] {
  return [...config.sources.dirs]
    .reverse()
    .map((dir) => join(dir, SOURCE_CONFIG_FILE))
    .filter((path) => exists(path));
}

/** Keep only the allowed sections and keys of a skills folder's config.yaml; say what was dropped. Pure. */
export function restrictSourceConfig(file: ConfigFile): { file: ConfigFile; warnings: string[] } {
  const data = file.data;
  if (!isMapping(data)) return { file, warnings: [] };
  const kept: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (!SOURCE_CONFIG_SECTIONS.includes(key)) {
      warnings.push(
        `${file.path}: key "${key}" ignored: a skills folder's config.yaml may only set ${SOURCE_CONFIG_SECTIONS.join(", ")}.`,
      );
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
      if (SOURCE_CONFIG_FORBIDDEN_KEYS.includes(dotted)) {
        warnings.push(
          `${file.path}: key "${dotted}" ignored: a skills folder's config.yaml may not set ${SOURCE_CONFIG_FORBIDDEN_KEYS.join(", ")} (they belong in ~/.skillhub/config.yaml or the environment).`,
        );
      } else section[child] = childValue;
    }
    kept[key] = section;
  }
  return { file: { path: file.path, data: kept }, warnings };
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
