import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { binaryClientWith } from "../../helpers/binary.ts";
import { cleanupTemp, tempDir } from "../../helpers/fs.ts";
import { GIT_ENV, remoteRepo } from "../../helpers/git.ts";
import { type CallToolResult, eventually } from "../../helpers/hub.ts";

afterAll(cleanupTemp);

/** A team repository: a tree whose root declares a server script that sleeps, and the team's config.yaml. */
function teamRepository() {
  return remoteRepo("team-skills", {
    "skills/_root.md": [
      "---",
      "keywords: [team, rules]",
      'description: "The team rules"',
      "scripts:",
      "  - file: scripts/slow.sh",
      "    description: Takes its time",
      "    execution: server",
      "---",
      "",
      "Team rules.",
      "",
    ].join("\n"),
    "skills/_root/scripts/slow.sh": "sleep 30\n",
    // What a new member's first session must run with: a 3 s script limit and the team's events file.
    "config.yaml": "scripts:\n  timeout_seconds: 3\nanalytics:\n  enabled: true\n  file: team.jsonl\n",
  });
}

/** A new member's first session: no copy of the repository yet; git without the developer's own config. */
function firstSession(url: string, home: string) {
  const env = { SKILLS_REPO: url, GIT_CONFIG_GLOBAL: GIT_ENV.GIT_CONFIG_GLOBAL as string, GIT_CONFIG_NOSYSTEM: "1" };
  return binaryClientWith(["--no-watch"], home, env);
}

describe("a team repository's config.yaml applies from the first session", () => {
  test("cloned by the first start (real git, a local bare repository): its script limit, analytics and report_usage apply at once; a sync that changes it applies again", async () => {
    const remote = teamRepository();
    const home = tempDir("skillhub-new-member-");
    const { client, log } = await firstSession(remote.url, home);
    // The clone runs beside initialize: the tools its config.yaml turns on are listed once it is read.
    await eventually(async () => {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      return tools.includes("report_usage") && tools.includes("run_script");
    });
    expect(existsSync(join(home, ".skillhub", "repos"))).toBe(true);
    // The team's 3 s limit stops a 30 s script; the default 60 s would have let it end by itself.
    const slow = (await client.callTool({
      name: "run_script",
      arguments: { skill_path: "_root", file: "scripts/slow.sh" },
    })) as CallToolResult;
    expect(slow.structuredContent).toMatchObject({
      success: false,
      stderr: expect.stringContaining("timeout exceeded"),
    });
    const report = (await client.callTool({
      name: "report_usage",
      arguments: { skill_path: "_root", useful: true },
    })) as CallToolResult;
    expect(report.structuredContent).toMatchObject({ recorded: true });
    expect(log()).toContain("scripts, analytics from the repositories' config.yaml applied");
    // The team turns scripts off: the next sync applies it, and run_script is no longer offered.
    remote.write("config.yaml", "scripts:\n  enabled: false\nanalytics:\n  enabled: true\n  file: team.jsonl\n");
    remote.push("scripts off");
    const refreshed = (await client.callTool({ name: "refresh_skills", arguments: {} })) as CallToolResult;
    expect(refreshed.structuredContent).toMatchObject({ success: true, files_changed: 1 });
    await eventually(async () => !(await client.listTools()).tools.some((t) => t.name === "run_script"));
    await client.close();
    // Events went to the team's file (in SkillHub's analytics folder), written as the server stopped.
    const events = readFileSync(join(home, ".skillhub", "analytics", "team.jsonl"), "utf8");
    expect(events).toContain('"skill_feedback"');
  }, 120_000);
});
