import { afterAll, describe, expect, test } from "bun:test";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { type ConnectOptions, connect, textOf } from "../helpers/hub.ts";
import { writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/** An Agent Skill `pdf` and the tree node `ui/react/auth`. */
async function open(options: ConnectOptions = {}, extra: string[] = []) {
  const dir = tempDir();
  writeSkill(dir, "pdf");
  writeNode(dir, "ui/react/auth.md", { keywords: ["react", "auth"], description: "React authentication" });
  for (const name of extra) writeSkill(dir, name);
  const s = await connect({ ...options, flags: { "skills-dir": [dir], ...options.flags } });
  closers.push(s.close);
  return s;
}

describe("report_usage", () => {
  test("records feedback: the documented response, a stderr line and a skill_feedback event", async () => {
    const { call, logger, hub } = await open({
      env: { SKILLHUB_ANALYTICS_FILE: `${tempDir()}/events.jsonl`, SKILLHUB_ANALYTICS_FLUSH_SECONDS: "3600" },
    });
    const result = await call("report_usage", {
      skill_path: "ui/react/auth",
      useful: false,
      comment: "Ne couvre pas le cas SSO",
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ recorded: true, message: "Feedback recorded for ui/react/auth" });
    expect(JSON.parse(textOf(result))).toEqual({ recorded: true, message: "Feedback recorded for ui/react/auth" });
    expect(
      logger.lines.some((l) => l.includes('feedback on "ui/react/auth": not useful: "Ne couvre pas le cas SSO"')),
    ).toBe(true);
    const [event] = hub.analytics.tracker.drain();
    expect(event).toMatchObject({
      type: "skill_feedback",
      data: { skill_path: "ui/react/auth", useful: false, comment: "Ne couvre pas le cas SSO" },
    });
  });

  test("repeated negative feedback on one skill logs a warning at the third report", async () => {
    const { call, logger } = await open({ flags: { tools: "tree" } });
    const warnings = () => logger.lines.filter((l) => l.includes("WARN") && l.includes('reported "not useful"'));
    await call("report_usage", { skill_path: "pdf", useful: false });
    await call("report_usage", { skill_path: "pdf", useful: true });
    await call("report_usage", { skill_path: "ui/react/auth", useful: false });
    await call("report_usage", { skill_path: "pdf", useful: false });
    expect(warnings()).toHaveLength(0);
    await call("report_usage", { skill_path: "pdf", useful: false, comment: "Still no OCR." });
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain('skill "pdf" was reported "not useful" 3 times');
    expect(warnings()[0]).toContain("Still no OCR.");
  });

  test("a skill that does not exist, or is disabled, is an error: no event, no feedback count", async () => {
    const { call, hub, logger } = await open(
      {
        env: {
          SKILLHUB_ANALYTICS_FILE: `${tempDir()}/events.jsonl`,
          SKILLHUB_ANALYTICS_FLUSH_SECONDS: "3600",
          SKILLHUB_ENABLED_SKILLS: "pdf,ui/react/auth",
        },
      },
      ["beta"],
    );
    for (let i = 0; i < 3; i++) {
      const missing = await call("report_usage", { skill_path: "does/not/exist", useful: false });
      expect(missing.isError).toBe(true);
      expect(missing.structuredContent).toMatchObject({ error: { code: "SKILL_NOT_FOUND" } });
      // The text is JSON.stringify of the result, errors included.
      expect(JSON.parse(textOf(missing))).toEqual(missing.structuredContent as Record<string, unknown>);
    }
    const disabled = await call("report_usage", { skill_path: "beta", useful: false });
    expect(disabled.isError).toBe(true);
    expect(disabled.structuredContent).toMatchObject({ error: { code: "SKILL_DISABLED", skill: "beta" } });
    expect(hub.analytics.tracker.drain()).toEqual([]);
    expect(logger.lines.filter((l) => l.includes("feedback on") || l.includes('reported "not useful"'))).toEqual([]);
    const ok = await call("report_usage", { skill_path: "PDF", useful: true });
    expect(ok.structuredContent).toEqual({ recorded: true, message: "Feedback recorded for pdf" });
    expect(hub.analytics.tracker.drain()).toMatchObject([
      { type: "skill_feedback", data: { skill_path: "pdf", useful: true } },
    ]);
  });

  test("validation: useful is required, the schema describes every field, annotations say it writes", async () => {
    const { call, client } = await open({ flags: { tools: "all" } });
    const result = await call("report_usage", { skill_path: "pdf" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("INVALID_ARGUMENT");
    expect(textOf(result)).toContain("useful");
    const tool = (await client.listTools()).tools.find((t) => t.name === "report_usage");
    expect(tool?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    for (const field of ["skill_path", "useful", "comment"])
      expect((tool?.inputSchema.properties?.[field] as { description?: string }).description).toBeTruthy();
    expect(tool?.inputSchema.required).toEqual(["skill_path", "useful"]);
  });
});

describe("refresh_skills without repositories (local mode)", () => {
  test("rescans the folders and answers the documented local shape", async () => {
    const dir = tempDir();
    writeSkill(dir, "one");
    const { call, client } = await open({ flags: { "skills-dir": [dir] } });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("refresh_skills");
    writeSkill(dir, "two");
    const result = await call("refresh_skills");
    expect(result.structuredContent).toEqual({
      success: true,
      mode: "local",
      skills_reindexed: 2,
      message: "Reindexed from local directory (no git sync configured).",
    });
    expect(textOf(await call("skill", { name: "two" }))).toStartWith("Loading: two\n");
  });

  test("emits a refresh event", async () => {
    const { call, hub } = await open({
      env: { SKILLHUB_ANALYTICS_FILE: `${tempDir()}/e.jsonl`, SKILLHUB_ANALYTICS_FLUSH_SECONDS: "3600" },
    });
    await call("refresh_skills");
    expect(hub.analytics.tracker.drain()).toMatchObject([
      {
        type: "refresh",
        data: { mode: "local", success: true, commit_hash: null, files_changed: 0, skills_reindexed: 2 },
      },
    ]);
  });
});
