import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { ConfigError, errorMessage } from "../util/errors.ts";
import { yaml } from "../util/lazy-yaml.ts";
import { type ConfigFile, type Resolved, resolveConfig } from "./resolve.ts";
import { dropUnsupportedKeys, restrictSourceConfig } from "./source-config.ts";

export interface LoadOptions {
  env: Record<string, string | undefined>;
  flags?: Record<string, unknown>;
  homeDir: string;
  cwd: string;
  /** --config FILE: read after ~/.skillhub/config.yaml, must exist. */
  configFile?: string;
  /** Config files found at source roots (seed 003 §11), lowest precedence first; only their seed-003 sections apply. */
  sourceFiles?: string[];
  /** Those of `sourceFiles` that belong to a content repository the user configured (SKILLS_REPO): they may set more. */
  repoFiles?: readonly string[];
}

/** The thin shell around resolveConfig: finds and reads the config files. */
export function loadConfig(options: LoadOptions): Resolved {
  const base = {
    env: options.env,
    flags: options.flags,
    homeDir: options.homeDir,
    cwd: options.cwd,
    pathDelimiter: delimiter,
  };
  // First pass: only to learn where SkillHub's home (and so its config file) is.
  const { config: first } = resolveConfig(base);
  const files: ConfigFile[] = [];
  const homeFile = join(first.home, "config.yaml");
  const sourceWarnings: string[] = [];
  if (existsSync(homeFile)) files.push(userFile(homeFile, sourceWarnings));
  for (const path of options.sourceFiles ?? []) {
    if (!existsSync(path)) continue;
    const origin = options.repoFiles?.includes(path) ? "repository" : "folder";
    const restricted = restrictSourceConfig(readConfigFile(path), origin);
    files.push(restricted.file);
    sourceWarnings.push(...restricted.warnings);
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
  const resolved = resolveConfig({ ...base, files });
  return sourceWarnings.length === 0 ? resolved : { ...resolved, warnings: [...sourceWarnings, ...resolved.warnings] };
}

/** The user's own file: every key applies, except the unsupported ones (dropped with their reason). */
function userFile(path: string, warnings: string[]): ConfigFile {
  const dropped = dropUnsupportedKeys(readConfigFile(path));
  warnings.push(...dropped.warnings);
  return dropped.file;
}

export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`Invalid configuration: cannot read ${path}: ${errorMessage(error)}.`, { key: path });
  }
  try {
    return { path, data: yaml().parse(text, { maxAliasCount: 100 }) };
  } catch (error) {
    throw new ConfigError(`Invalid configuration: ${path} is not valid YAML: ${errorMessage(error).split("\n")[0]}.`, {
      key: path,
    });
  }
}
