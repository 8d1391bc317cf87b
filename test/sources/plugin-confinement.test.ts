import { afterAll, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { createHttpHandler } from "../../src/transports/http-handler.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { connect, textOf } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/** A home with one installed plugin `evil@acme` (its folder returned) and another project's private skill. */
function world() {
  const home = tempDir("skillhub-plugin-home-");
  const plugins = join(home, ".claude", "plugins");
  const plugin = join(plugins, "cache", "acme", "evil", "1.0.0");
  writeSkill(join(plugin, "skills"), "honest", { description: "A skill the plugin ships." });
  write(
    join(plugins, "installed_plugins.json"),
    JSON.stringify({ version: 2, plugins: { "evil@acme": [{ scope: "user", installPath: plugin }] } }),
  );
  const other = tempDir("skillhub-other-project-");
  writeSkill(join(other, ".claude", "skills"), "private", {
    description: "Another project's private skill.",
    body: "# private\n\nPRIVATE-CANARY\n",
  });
  return { home, plugins, plugin, privateSkill: join(other, ".claude", "skills", "private") };
}

describe("plugin skills are confined to their plugin's folder", () => {
  test("a link out of the plugin is refused with a diagnostic; its own skills are served", async () => {
    const w = world();
    symlinkSync(w.privateSkill, join(w.plugin, "skills", "stolen"));
    symlinkSync(join(w.privateSkill, "SKILL.md"), join(w.plugin, "skills", "node.md"));
    symlinkSync(join(w.privateSkill, "SKILL.md"), join(w.plugin, "skills", "honest", "notes.md"));
    // A link that stays inside the plugin is fine.
    symlinkSync(join(w.plugin, "skills", "honest"), join(w.plugin, "skills", "alias"));
    const s = await connect({ home: w.home, env: { SKILLHUB_TOOLS: "all" } });
    closers.push(s.close);
    expect(s.hub.catalog.get("honest")?.id).toBe("evil:honest");
    expect(s.hub.catalog.get("private")).toBeUndefined();
    const refused = s.hub.catalog.diagnostics.filter((d) => d.code === "symlink-outside");
    expect(refused.map((d) => d.file.split("/").pop()).sort()).toEqual(["node.md", "stolen"]);
    expect(refused[0]?.message).toContain("synced repositories and plugins are confined to their folder");
    const leak = await s.call("read_skill_file", { skill_name: "honest", file_path: "notes.md" });
    expect(leak.structuredContent?.error.code).toBe("PATH_OUTSIDE_SKILL");
    for (const result of [
      leak,
      await s.call("skill", { name: "evil:stolen" }),
      await s.call("skill", { name: "private" }),
      await s.call("list_skills", { include_body: true }),
      await s.call("search_skills", { query: "private canary" }),
    ])
      expect(JSON.stringify(result)).not.toContain("PRIVATE-CANARY");
  });

  test("a plugin whose skills folder links outside it is not served, and a warning says why", async () => {
    const w = world();
    const { rmSync } = await import("node:fs");
    rmSync(join(w.plugin, "skills"), { recursive: true });
    symlinkSync(join(w.privateSkill, ".."), join(w.plugin, "skills"));
    const s = await connect({ home: w.home });
    closers.push(s.close);
    expect(s.hub.catalog.get("private")).toBeUndefined();
    expect(s.hub.catalog.sources.some((src) => src.label === "plugin:evil")).toBe(false);
    expect(s.logger.lines.join("\n")).toContain(
      `plugin evil@acme: its skills folder ${join(w.plugin, "skills")} links outside the plugin`,
    );
  });

  test("a skill folder swapped for a link out after the scan is refused when read", async () => {
    const w = world();
    const s = await connect({ home: w.home });
    closers.push(s.close);
    expect(s.hub.catalog.get("honest")).toBeDefined();
    const { renameSync } = await import("node:fs");
    renameSync(join(w.plugin, "skills", "honest"), join(w.plugin, "moved"));
    symlinkSync(w.privateSkill, join(w.plugin, "skills", "honest"));
    const result = await s.call("skill", { name: "honest" });
    expect(textOf(result)).not.toContain("PRIVATE-CANARY");
    expect(result.isError).toBe(true);
  });
});

describe("a plugin's skills folder swapped for a link out while the server runs", () => {
  test("its skills' files are refused when read, and the web page lists none of the other folder", async () => {
    const w = world();
    // What the link will lead to: a folder with a skill of the same name, and a key beside it.
    const elsewhere = tempDir("skillhub-elsewhere-");
    writeSkill(elsewhere, "honest", { body: "# honest\n\nPRIVATE-CANARY\n" });
    write(join(elsewhere, "honest", "id_rsa"), "PRIVATE-CANARY key\n");
    const s = await connect({ home: w.home, env: { SKILLHUB_TOOLS: "all" } });
    closers.push(s.close);
    expect(s.hub.catalog.get("honest")?.id).toBe("evil:honest");
    const { renameSync } = await import("node:fs");
    renameSync(join(w.plugin, "skills"), join(w.plugin, "moved"));
    symlinkSync(elsewhere, join(w.plugin, "skills"));
    // The page first: a refused read makes the server scan again, and the plugin is then dropped.
    const page = createHttpHandler(s.hub, { host: "127.0.0.1", version: "test" });
    closers.push(() => page.close());
    const answer = await page.handle(
      new Request("http://127.0.0.1:8000/ui/api/skill?id=evil%3Ahonest", { headers: { host: "127.0.0.1:8000" } }),
    );
    const detail = (await answer.json()) as { files: unknown[] };
    expect(answer.status, JSON.stringify(detail)).toBe(200);
    expect(detail.files).toEqual([]);
    expect(JSON.stringify(detail)).not.toContain("id_rsa");
    const read = await s.call("read_skill_file", { skill_name: "honest", file_path: "id_rsa" });
    expect(read.structuredContent?.error.code).toBe("PATH_OUTSIDE_SKILL");
    expect(read.structuredContent?.error.message).toContain("was replaced since it was scanned");
    for (const result of [
      read,
      await s.call("skill", { name: "honest" }),
      await s.call("load_skill", { skill_name: "honest" }),
    ])
      expect(JSON.stringify(result)).not.toContain("PRIVATE-CANARY");
  });
});

describe("Claude Code's plugin files are read by the bounded reader", () => {
  test("installed_plugins.json as a FIFO or /dev/zero: the cache is used, a warning names the file", async () => {
    for (const make of ["fifo", "zero"] as const) {
      const w = world();
      const registry = join(w.plugins, "installed_plugins.json");
      (await import("node:fs")).rmSync(registry);
      if (make === "fifo") expect(Bun.spawnSync(["mkfifo", registry]).exitCode).toBe(0);
      else symlinkSync("/dev/zero", registry);
      const s = await connect({ home: w.home });
      closers.push(s.close);
      expect(s.hub.catalog.get("honest")?.id).toBe("evil:honest");
      const kind = make === "fifo" ? "a FIFO (named pipe)" : "a character device";
      expect(s.logger.lines.join("\n")).toContain(
        `plugins: '${registry}' is ${kind}, not a regular file; the newest cached plugins are served.`,
      );
    }
  });

  test("~/.claude/settings.json as a FIFO, /dev/zero, or broken: no plugin skill is served (which are off is unknown)", async () => {
    for (const make of ["fifo", "zero", "broken"] as const) {
      const w = world();
      const settings = join(w.home, ".claude", "settings.json");
      if (make === "fifo") expect(Bun.spawnSync(["mkfifo", settings]).exitCode).toBe(0);
      else if (make === "zero") symlinkSync("/dev/zero", settings);
      else write(settings, "{ not json");
      const s = await connect({ home: w.home });
      closers.push(s.close);
      expect(s.hub.catalog.get("honest")).toBeUndefined();
      const log = s.logger.lines.join("\n");
      expect(log).toContain(settings);
      expect(log).toContain("no plugin skill is served until it can be read");
      // Said once, not at every rescan.
      await s.hub.refresher.rescan("test");
      expect(s.logger.lines.filter((l) => l.includes("no plugin skill is served")).length).toBe(1);
    }
  });
});
