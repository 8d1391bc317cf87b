import { afterAll, describe, expect, test } from "bun:test";
import { resolveConfig } from "../../src/config/resolve.ts";
import { repositorySections } from "../../src/server/repo-config.ts";
import { ConfigError } from "../../src/util/errors.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp } from "../helpers/fs.ts";
import { GIT_ENV, remoteRepo, skillText } from "../helpers/git.ts";
import { connect } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

const base = () => resolveConfig({ env: {}, homeDir: "/h", cwd: "/h" }).config;

describe("a repository's settings, taken up by a running server", () => {
  test("only the sections read at use (matching, scripts, assets, analytics, content); refresh and git wait for the next start", () => {
    const current = base();
    const next = {
      ...current,
      scripts: { ...current.scripts, timeout_seconds: 3 },
      refresh: { ...current.refresh, interval_minutes: 1 },
      server: { ...current.server, port: 1 },
    };
    const { config, changed } = repositorySections(current, next);
    expect(changed).toEqual(["scripts"]);
    expect(config.scripts.timeout_seconds).toBe(3);
    expect(config.refresh.interval_minutes).toBe(current.refresh.interval_minutes);
    expect(config.server.port).toBe(current.server.port);
    expect(repositorySections(current, current).changed).toEqual([]);
  });

  test("a config.yaml that cannot be read after a sync leaves the configuration as it was, with a warning", async () => {
    const remote = remoteRepo("team-skills", { "skills/alpha/SKILL.md": skillText("alpha") });
    const s = await connect({
      env: { SKILLS_REPO: remote.url },
      hub: {
        git: { runner: { env: GIT_ENV }, intervalMs: 0 },
        reloadConfig: () => {
          throw new ConfigError("Invalid configuration: config.yaml is not valid YAML: at line 2, column 1.", {});
        },
      },
    });
    closers.push(s.close);
    const before = s.hub.config;
    remote.write("skills/beta/SKILL.md", skillText("beta"));
    remote.push("beta");
    expect((await s.call("refresh_skills")).structuredContent).toMatchObject({ success: true });
    expect(s.hub.config).toBe(before);
    expect(s.logger.lines.join("\n")).toContain(
      "configuration not read again after the git sync: Invalid configuration",
    );
  });
});
