import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { claudePlugins, findPluginSources, pluginSourceInputs } from "../../src/sources/plugin-sources.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { connect, eventually, textOf } from "../helpers/hub.ts";
import { writeScriptTree } from "../helpers/scripts.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/** A home with Claude Code's plugin layout: installed_plugins.json and cache/<marketplace>/<plugin>/<version>/skills. */
function claudeHome() {
  const home = tempDir("skillhub-claude-home-");
  const plugins = join(home, ".claude", "plugins");
  const install = (marketplace: string, plugin: string, version: string, skills: string[]) => {
    const dir = join(plugins, "cache", marketplace, plugin, version);
    write(join(dir, ".claude-plugin", "plugin.json"), JSON.stringify({ name: plugin, version }));
    for (const s of skills) writeSkill(join(dir, "skills"), s, { description: `${s} from plugin ${plugin}.` });
    return dir;
  };
  return { home, plugins, install };
}

describe("Claude Code plugin skills as a source", () => {
  test("a plugin installed while the server runs is served without a restart: the registry is watched, and checked every rescan interval", async () => {
    const { home, plugins, install } = claudeHome();
    const first = install("acme", "docs-kit", "1.0.0", ["pdf"]);
    const registry = (entries: Record<string, string>) =>
      write(
        join(plugins, "installed_plugins.json"),
        JSON.stringify({
          version: 2,
          plugins: Object.fromEntries(
            Object.entries(entries).map(([k, dir]) => [k, [{ scope: "user", installPath: dir }]]),
          ),
        }),
      );
    registry({ "docs-kit@acme": first });
    // Watches and a 1 s timer: the watch on the registry, or the timer's check of the source list, sees it.
    const s = await connect({ home, env: { SKILLHUB_RESCAN_SECONDS: "1", SKILLHUB_WATCH: "1" } });
    closers.push(s.close);
    await s.hub.refresher.watched;
    expect(s.hub.catalog.get("pdf")?.id).toBe("docs-kit:pdf");
    const second = install("zeta", "tools", "2.0.0", ["hammer"]);
    registry({ "docs-kit@acme": first, "tools@zeta": second });
    await eventually(() => s.hub.catalog.get("hammer"));
    expect(s.hub.catalog.get("hammer")?.id).toBe("tools:hammer");
  });

  test("what the plugin lookup reads, for polling: the registry, the settings and the cache's folders", () => {
    const { home, plugins, install } = claudeHome();
    install("acme", "docs-kit", "1.0.0", ["pdf"]);
    const input = claudePlugins(undefined, home, null);
    expect(input.pluginsDir).toBe(plugins);
    expect(pluginSourceInputs(input)).toEqual([
      join(plugins, "installed_plugins.json"),
      join(home, ".claude", "settings.json"),
      join(plugins, "cache"),
      join(plugins, "cache", "acme"),
      join(plugins, "cache", "acme", "docs-kit"),
    ]);
    expect(pluginSourceInputs(undefined)).toEqual([]);
    expect(findPluginSources(undefined)).toEqual([]);
  });

  test("installed plugins' skills are served, labelled plugin:<plugin>, qualified <plugin>:<skill>, below every folder", async () => {
    const { home, plugins, install } = claudeHome();
    const docs = install("acme", "docs-kit", "1.2.0", ["pdf", "writer"]);
    // An older version left in the cache is not the installed one.
    install("acme", "docs-kit", "1.0.0", ["ancient"]);
    const off = install("acme", "noisy", "0.1.0", ["noise"]);
    const elsewhere = install("acme", "other-project", "1.0.0", ["theirs"]);
    write(
      join(plugins, "installed_plugins.json"),
      JSON.stringify({
        version: 2,
        plugins: {
          "docs-kit@acme": [{ scope: "user", installPath: docs, version: "1.2.0" }],
          "noisy@acme": [{ scope: "user", installPath: off, version: "0.1.0" }],
          "other-project@acme": [{ scope: "project", projectPath: "/somewhere/else", installPath: elsewhere }],
        },
      }),
    );
    write(join(home, ".claude", "settings.json"), JSON.stringify({ enabledPlugins: { "noisy@acme": false } }));
    // A personal skill of the same name wins over the plugin's.
    writeSkill(join(home, ".claude", "skills"), "pdf", { description: "My own pdf skill." });

    const s = await connect({ home });
    closers.push(s.close);
    const labels = s.hub.catalog.sources.map((src) => src.label);
    expect(labels.at(-1)).toBe("plugin:docs-kit");
    expect(labels.filter((l) => l.startsWith("plugin:"))).toEqual(["plugin:docs-kit"]);
    expect(s.hub.catalog.get("writer")?.id).toBe("docs-kit:writer");
    expect(s.hub.catalog.get("pdf")?.description).toBe("My own pdf skill.");
    expect(s.hub.catalog.get("ancient")).toBeUndefined();
    expect(s.hub.catalog.get("noise")).toBeUndefined();
    expect(s.hub.catalog.get("theirs")).toBeUndefined();
    // The shadowed plugin skill stays reachable by Claude Code's name for it.
    const loaded = await s.call("skill", { name: "docs-kit:pdf" });
    expect(textOf(loaded)).toContain("pdf from plugin docs-kit.");
    const shadowed = s.hub.catalog.diagnostics.find((d) => d.code === "shadowed");
    expect(shadowed?.message).toContain("load it as 'docs-kit:pdf'");
  });

  test("without installed_plugins.json the newest cached version of each plugin is used; SKILLHUB_PLUGINS=0 turns it off", async () => {
    const { home, plugins, install } = claudeHome();
    install("acme", "docs-kit", "1.9.0", ["old-one"]);
    install("acme", "docs-kit", "1.10.0", ["new-one"]);
    install("zeta", "tools", "2.0.0", ["hammer"]);
    const found = findPluginSources({ pluginsDir: plugins, projectDir: null });
    expect(found.map((f) => [f.label, f.qualifier, f.dir])).toEqual([
      ["plugin:docs-kit", "docs-kit", join(plugins, "cache", "acme", "docs-kit", "1.10.0", "skills")],
      ["plugin:tools", "tools", join(plugins, "cache", "zeta", "tools", "2.0.0", "skills")],
    ]);
    const off = await connect({ home, env: { SKILLHUB_PLUGINS: "0" } });
    closers.push(off.close);
    expect(off.hub.catalog.get("hammer")).toBeUndefined();
  });

  test("a broken installed_plugins.json or plugin folder is no error; a plugin named like a fixed source keeps its prefix", () => {
    const { plugins, install } = claudeHome();
    write(join(plugins, "installed_plugins.json"), "{ broken");
    install("acme", "project", "1.0.0", ["x"]);
    // Which scope each plugin was installed for is unknown then: each is taken for the project's.
    expect(findPluginSources({ pluginsDir: plugins, projectDir: null })).toEqual([
      {
        label: "plugin:project",
        qualifier: "plugin:project",
        dir: join(plugins, "cache", "acme", "project", "1.0.0", "skills"),
        location: "project",
      },
    ]);
    write(
      join(plugins, "installed_plugins.json"),
      JSON.stringify({
        version: 2,
        plugins: { "../evil@x": [{ installPath: "/" }], "p@m": "nonsense", "q@m": [null] },
      }),
    );
    expect(findPluginSources({ pluginsDir: plugins, projectDir: null })).toEqual([]);
    expect(findPluginSources({ pluginsDir: join(plugins, "missing"), projectDir: null })).toEqual([]);
  });
});

describe("a plugin installed for the project (scope project or local)", () => {
  test("is the project's: its server scripts and commands run only with scripts.allow_project; one installed for the user runs them", async () => {
    const { home, plugins, install } = claudeHome();
    const project = tempDir("skillhub-project-");
    const dir = install("acme", "tools-kit", "1.0.0", ["helper"]);
    writeScriptTree(join(dir, "skills"));
    const registry = (entry: Record<string, string>) =>
      write(
        join(plugins, "installed_plugins.json"),
        JSON.stringify({ version: 2, plugins: { "tools-kit@acme": [{ ...entry, installPath: dir }] } }),
      );
    const open = async () => {
      const s = await connect({
        home,
        cwd: project,
        flags: { project },
        env: { SKILLHUB_TOOLS: "all", SKILLHUB_ENABLE_COMMANDS: "1", ALLOWED_COMMANDS: "bash" },
      });
      closers.push(s.close);
      const script = () =>
        s.call("run_script", { skill_path: "tools/echo", file: "scripts/args.sh", args: { name: "x" } });
      const command = () =>
        s.call("run_skill_command", { skill_name: "tools/echo", command: "bash", args: ["scripts/args.sh"] });
      const location = s.hub.catalog.sources.find((src) => src.label === "plugin:tools-kit")?.location;
      return { s, script, command, location };
    };
    for (const scope of ["project", "local"]) {
      registry({ scope, projectPath: project });
      const { s, script, command, location } = await open();
      expect(location).toBe("project");
      const refused = await script();
      expect(refused.structuredContent?.error).toMatchObject({ code: "SCRIPTS_DISABLED", location: "project" });
      expect(refused.structuredContent?.error.message).toContain("a Claude Code plugin installed for it");
      expect((await command()).structuredContent?.error).toMatchObject({ code: "COMMANDS_DISABLED" });
      // The skill tool's listing says where it comes from.
      const tools = await s.client.listTools();
      const listing = tools.tools.find((t) => t.name === "skill")?.description ?? "";
      expect(listing).toContain(
        "<name>helper</name>\n<description>helper from plugin tools-kit.</description>\n<location>project</location>",
      );
      s.hub.config.scripts.allow_project = true;
      expect((await script()).structuredContent).toMatchObject({ success: true });
    }
    registry({ scope: "user" });
    const { script, location } = await open();
    expect(location).toBe("global");
    expect((await script()).structuredContent).toMatchObject({ success: true });
  });

  test("so is one installed for the user whose folder is inside the project", () => {
    const { plugins } = claudeHome();
    const project = tempDir("skillhub-project-");
    const dir = join(project, "vendor", "plug");
    writeSkill(join(dir, "skills"), "pk", { description: "A plugin skill kept in the project." });
    write(
      join(plugins, "installed_plugins.json"),
      JSON.stringify({ version: 2, plugins: { "plug@m": [{ scope: "user", installPath: dir }] } }),
    );
    expect(findPluginSources({ pluginsDir: plugins, projectDir: project })[0]?.location).toBe("project");
    expect(findPluginSources({ pluginsDir: plugins, projectDir: tempDir() })[0]?.location).toBe("global");
  });
});
