import { readdirSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { errorMessage } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";
import { readNamedText } from "../util/named-file.ts";
import { isInside } from "../util/safe-path.ts";
import { isReservedLabel, PLUGIN_LABEL_PREFIX, type Source } from "./source-list.ts";

/**
 * Skills of installed Claude Code plugins as sources. Claude Code
 * records its installs in `~/.claude/plugins/installed_plugins.json`:
 * `{ "version": 2, "plugins": { "<plugin>@<marketplace>": [{ "scope", "installPath",
 * "version", "projectPath"? }] } }`, where `installPath` is usually
 * `~/.claude/plugins/cache/<marketplace>/<plugin>/<version>`; a plugin's skills
 * are `<installPath>/skills/<skill>/SKILL.md`. Without that file (older
 * layouts), the newest version folder of each cached plugin is used. Plugins
 * turned off in `~/.claude/settings.json` (`enabledPlugins: { "p@m": false }`)
 * are skipped. Each plugin is labelled `plugin:<plugin>`, and its skills are
 * qualified `<plugin>:<skill>`, as Claude Code names them. A plugin installed
 * for the user is a global source; one installed for this project (scope
 * `project` or `local`) is a project source.
 *
 * Security: a plugin is someone else's content. Its skills folder must be
 * inside the plugin's folder, and links in it may not leave it (the walker
 * confines plugin sources as it does synced repositories: source-list.ts).
 * The registry and the settings are read by the bounded reader (a FIFO or a
 * device in their place is named in a warning, never read); settings that
 * cannot be read turn every plugin off, since which ones the user turned off
 * is then unknown.
 */

export interface PluginSourceInput {
  /** Claude Code's plugins folder (~/.claude/plugins). */
  pluginsDir: string;
  /** Claude Code's user settings file (~/.claude/settings.json), for enabledPlugins. */
  settingsFile?: string;
  /** The project root: plugins installed for another project are not served. */
  projectDir: string | null;
  /** Where problems with the registry, the settings or a plugin's folder are said (each once per logger). */
  logger?: Pick<Logger, "warn">;
}

/** Largest installed_plugins.json or settings.json read (real ones are a few kilobytes). */
export const MAX_PLUGIN_FILE_BYTES = 4 * 1_048_576;

const PLUGIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Claude Code's plugins (`dir`, else ~/.claude/plugins) and settings, looked up for `projectDir`. */
export function claudePlugins(
  dir: string | undefined,
  homeDir: string,
  projectDir: string | null,
  logger?: Pick<Logger, "warn">,
): PluginSourceInput {
  return {
    pluginsDir: dir ?? join(homeDir, ".claude", "plugins"),
    settingsFile: join(homeDir, ".claude", "settings.json"),
    projectDir,
    ...(logger ? { logger } : {}),
  };
}

/**
 * The plugin skill folders that exist, in a stable order (plugin name, then marketplace); none without
 * `input` (plugins not served). Never throws.
 */
export function findPluginSources(input: PluginSourceInput | undefined): Source[] {
  if (!input) return [];
  const disabled = disabledPlugins(input);
  if (disabled === undefined) return [];
  const registry = join(input.pluginsDir, "installed_plugins.json");
  // Security: a registry that is there but unusable says no scope, so each cached plugin is taken for the
  // project's (its scripts need scripts.allow_project), as one installed for this project would be.
  const installs = readInstalled(input) ?? readCache(input.pluginsDir, fileIsThere(registry));
  const seen = new Set<string>();
  const out: Source[] = [];
  for (const p of installs.sort((a, b) => cmp(a.plugin, b.plugin) || cmp(a.marketplace, b.marketplace))) {
    if (disabled.has(`${p.plugin}@${p.marketplace}`) || seen.has(p.plugin)) continue;
    const dir = join(resolve(p.installPath), "skills");
    if (!isDir(dir)) continue;
    // Security: `skills` linked out of the plugin would serve another folder's skills under its name.
    const outside = linkedOut(dir, p.installPath);
    if (outside) {
      warnOnce(
        input,
        `plugin ${p.plugin}@${p.marketplace}: its skills folder ${dir} links outside the plugin (to ${outside}); its skills are not served.`,
      );
      continue;
    }
    // The same plugin from two marketplaces: the first (by marketplace name) wins, as labels must be unique.
    seen.add(p.plugin);
    out.push({
      label: `${PLUGIN_LABEL_PREFIX}${p.plugin}`,
      dir,
      // Security: a plugin installed for the project (a committed .claude/settings.json can ask for one), or
      // one whose folder is inside the project, is the project's, like its skills folders: its server scripts
      // and commands run only with scripts.allow_project.
      location: p.forProject || insideProject(p.installPath, input.projectDir) ? "project" : "global",
      // A plugin named like a fixed source keeps `plugin:<name>` as its qualifier.
      qualifier: isReservedLabel(p.plugin) ? `${PLUGIN_LABEL_PREFIX}${p.plugin}` : p.plugin,
    });
  }
  return out;
}

/**
 * What findPluginSources reads, for polling (a plugin installed, removed, enabled or disabled changes the
 * sources without touching a source folder): the registry, the settings, and the cache's folders.
 */
export function pluginSourceInputs(input: PluginSourceInput | undefined): string[] {
  if (!input) return [];
  const cache = join(input.pluginsDir, "cache");
  const marketplaces = dirs(cache).map((m) => join(cache, m));
  const plugins = marketplaces.flatMap((m) => dirs(m).map((p) => join(m, p)));
  const files = [join(input.pluginsDir, "installed_plugins.json"), ...(input.settingsFile ? [input.settingsFile] : [])];
  return [...files, cache, ...marketplaces, ...plugins];
}

interface Install {
  plugin: string;
  marketplace: string;
  installPath: string;
  /** Installed for this project (scope `project` or `local`), not for the user. */
  forProject?: boolean;
}

/** The registry's installs; undefined without a usable registry (then the cache is read instead). */
function readInstalled(input: PluginSourceInput): Install[] | undefined {
  const data = readJson(
    input,
    join(input.pluginsDir, "installed_plugins.json"),
    "the newest cached plugins are served",
  );
  if (data === undefined) return undefined;
  const plugins = (data as { plugins?: unknown } | null)?.plugins;
  if (!plugins || typeof plugins !== "object") return undefined;
  const out: Install[] = [];
  for (const [key, value] of Object.entries(plugins as Record<string, unknown>)) {
    const [plugin, marketplace = ""] = key.split("@");
    if (!plugin || !PLUGIN_NAME.test(plugin)) continue;
    // Version 1 of the file held one object per plugin; version 2 a list (one per scope).
    const entries = Array.isArray(value) ? value : [value];
    for (const entry of entries) {
      const e = entry as { installPath?: unknown; scope?: unknown; projectPath?: unknown } | null;
      if (typeof e?.installPath !== "string" || e.installPath === "") continue;
      const forProject = e.scope === "project" || e.scope === "local";
      if (forProject && (typeof e.projectPath !== "string" || resolve(e.projectPath) !== input.projectDir)) continue;
      out.push({ plugin, marketplace, installPath: e.installPath, forProject });
      break;
    }
  }
  return out;
}

/**
 * `cache/<marketplace>/<plugin>/<version>/`: the newest version (numeric-aware order) of each plugin, each
 * taken for the project's when `forProject` (its scope is unknown).
 */
function readCache(pluginsDir: string, forProject: boolean): Install[] {
  const cache = join(pluginsDir, "cache");
  const out: Install[] = [];
  for (const marketplace of dirs(cache)) {
    for (const plugin of dirs(join(cache, marketplace))) {
      if (!PLUGIN_NAME.test(plugin)) continue;
      const versions = dirs(join(cache, marketplace, plugin)).sort((a, b) =>
        a.localeCompare(b, "en", { numeric: true }),
      );
      const newest = versions.at(-1);
      if (newest) out.push({ plugin, marketplace, installPath: join(cache, marketplace, plugin, newest), forProject });
    }
  }
  return out;
}

/**
 * The plugins turned off in Claude Code's settings (`enabledPlugins: { "p@m": false }`); none without a
 * settings file; undefined when it exists but cannot be read or parsed: then which plugins the user
 * turned off is unknown, and none is served (fail closed).
 */
function disabledPlugins(input: PluginSourceInput): Set<string> | undefined {
  if (!input.settingsFile) return new Set();
  const data = readJson(input, input.settingsFile, "no plugin skill is served until it can be read");
  if (data === undefined) return fileIsThere(input.settingsFile) ? undefined : new Set();
  const enabled = (data as { enabledPlugins?: unknown } | null)?.enabledPlugins;
  if (!enabled || typeof enabled !== "object") return new Set();
  return new Set(
    Object.entries(enabled as Record<string, unknown>)
      .filter(([, on]) => on === false)
      .map(([key]) => key),
  );
}

/**
 * A JSON file of Claude Code's, through the bounded reader: its value, or undefined when it is missing
 * (silently) or cannot be read or parsed (with a warning saying so and `then`, what happens instead).
 */
function readJson(input: PluginSourceInput, file: string, then: string): unknown {
  const read = readNamedText({ path: file, maxBytes: MAX_PLUGIN_FILE_BYTES });
  if (!read.ok) {
    if (!read.missing) warnOnce(input, `plugins: ${read.reason.replace(/\.$/, "")}; ${then}.`);
    return undefined;
  }
  try {
    return JSON.parse(read.text);
  } catch (error) {
    warnOnce(input, `plugins: '${file}' is not valid JSON (${errorMessage(error)}); ${then}.`);
    return undefined;
  }
}

/** Whether something (anything) is at `path`, a dangling link excepted. */
function fileIsThere(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The real path `dir` resolves to when that is outside `plugin`'s real folder; undefined when inside. */
/** Whether the plugin's real folder is inside the project's. */
function insideProject(installPath: string, projectDir: string | null): boolean {
  if (projectDir === null) return false;
  try {
    return isInside(realpathSync(projectDir), realpathSync(installPath));
  } catch {
    return false;
  }
}

function linkedOut(dir: string, plugin: string): string | undefined {
  try {
    const real = realpathSync(dir);
    return isInside(realpathSync(plugin), real) ? undefined : real;
  } catch {
    return undefined;
  }
}

/** Problems already said, per logger: the registry is read at every scan, a problem is said once. */
const said = new WeakMap<object, Set<string>>();

function warnOnce(input: PluginSourceInput, message: string): void {
  const logger = input.logger;
  if (!logger) return;
  let seen = said.get(logger);
  if (!seen) {
    seen = new Set();
    said.set(logger, seen);
  }
  if (seen.has(message)) return;
  // Bounded: a registry that changes name at every scan cannot grow this without limit.
  if (seen.size >= 100) seen.clear();
  seen.add(message);
  logger.warn(message);
}

function dirs(folder: string): string[] {
  try {
    return readdirSync(folder, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => e.name);
  } catch {
    return [];
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
