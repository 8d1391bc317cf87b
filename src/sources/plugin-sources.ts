import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { isReservedLabel, type Source } from "./source-list.ts";

/**
 * Skills of installed Claude Code plugins as sources (issue 17). Claude Code
 * records its installs in `~/.claude/plugins/installed_plugins.json`:
 * `{ "version": 2, "plugins": { "<plugin>@<marketplace>": [{ "scope", "installPath",
 * "version", "projectPath"? }] } }`, where `installPath` is usually
 * `~/.claude/plugins/cache/<marketplace>/<plugin>/<version>`; a plugin's skills
 * are `<installPath>/skills/<skill>/SKILL.md`. Without that file (older
 * layouts), the newest version folder of each cached plugin is used. Plugins
 * turned off in `~/.claude/settings.json` (`enabledPlugins: { "p@m": false }`)
 * are skipped. Each plugin is labelled `plugin:<plugin>`, and its skills are
 * qualified `<plugin>:<skill>`, as Claude Code names them.
 */

export interface PluginSourceInput {
  /** Claude Code's plugins folder (~/.claude/plugins). */
  pluginsDir: string;
  /** Claude Code's user settings file (~/.claude/settings.json), for enabledPlugins. */
  settingsFile?: string;
  /** The project root: plugins installed for another project are not served. */
  projectDir: string | null;
}

const PLUGIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Claude Code's plugins (`dir`, else ~/.claude/plugins) and settings, looked up for `projectDir`. */
export function claudePlugins(dir: string | undefined, homeDir: string, projectDir: string | null): PluginSourceInput {
  return {
    pluginsDir: dir ?? join(homeDir, ".claude", "plugins"),
    settingsFile: join(homeDir, ".claude", "settings.json"),
    projectDir,
  };
}

/**
 * The plugin skill folders that exist, in a stable order (plugin name, then marketplace); none without
 * `input` (plugins not served). Never throws.
 */
export function findPluginSources(input: PluginSourceInput | undefined): Source[] {
  if (!input) return [];
  const installs = readInstalled(input) ?? readCache(input.pluginsDir);
  const disabled = disabledPlugins(input.settingsFile);
  const seen = new Set<string>();
  const out: Source[] = [];
  for (const p of installs.sort((a, b) => cmp(a.plugin, b.plugin) || cmp(a.marketplace, b.marketplace))) {
    if (disabled.has(`${p.plugin}@${p.marketplace}`) || seen.has(p.plugin)) continue;
    const dir = join(resolve(p.installPath), "skills");
    if (!isDir(dir)) continue;
    // The same plugin from two marketplaces: the first (by marketplace name) wins, as labels must be unique.
    seen.add(p.plugin);
    out.push({
      label: `plugin:${p.plugin}`,
      dir,
      location: "global",
      // A plugin named like a fixed source keeps `plugin:<name>` as its qualifier.
      qualifier: isReservedLabel(p.plugin) ? `plugin:${p.plugin}` : p.plugin,
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
}

function readInstalled(input: PluginSourceInput): Install[] | undefined {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(join(input.pluginsDir, "installed_plugins.json"), "utf8"));
  } catch {
    return undefined;
  }
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
      out.push({ plugin, marketplace, installPath: e.installPath });
      break;
    }
  }
  return out;
}

/** `cache/<marketplace>/<plugin>/<version>/`: the newest version (numeric-aware order) of each plugin. */
function readCache(pluginsDir: string): Install[] {
  const cache = join(pluginsDir, "cache");
  const out: Install[] = [];
  for (const marketplace of dirs(cache)) {
    for (const plugin of dirs(join(cache, marketplace))) {
      if (!PLUGIN_NAME.test(plugin)) continue;
      const versions = dirs(join(cache, marketplace, plugin)).sort((a, b) =>
        a.localeCompare(b, "en", { numeric: true }),
      );
      const newest = versions.at(-1);
      if (newest) out.push({ plugin, marketplace, installPath: join(cache, marketplace, plugin, newest) });
    }
  }
  return out;
}

function disabledPlugins(settingsFile: string | undefined): Set<string> {
  if (!settingsFile) return new Set();
  try {
    const data = JSON.parse(readFileSync(settingsFile, "utf8")) as { enabledPlugins?: unknown };
    const enabled = data?.enabledPlugins;
    if (!enabled || typeof enabled !== "object") return new Set();
    return new Set(
      Object.entries(enabled as Record<string, unknown>)
        .filter(([, on]) => on === false)
        .map(([key]) => key),
    );
  } catch {
    return new Set();
  }
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
