import { afterAll, describe, expect, test } from "bun:test";
import type { CallToolResult, Client } from "@modelcontextprotocol/client";
import { readJsonlFile } from "../../src/analytics/jsonl.ts";
import type { HubOptions } from "../../src/server/hub.ts";
import { httpClient } from "../helpers/clients.ts";
import { manualClock } from "../helpers/clock.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { type ConnectOptions, connect, httpHub, textOf } from "../helpers/hub.ts";
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

describe("report_usage in a loop cannot flood the log, the analytics file or the queue", () => {
  test("a long comment: the log line quotes its first 200 characters, the event keeps 2,000, both cuts marked", async () => {
    const token = "ghp_feedbacksecret42";
    const { call, hub, logger } = await open({
      env: {
        SKILLHUB_ANALYTICS_FILE: `${tempDir()}/events.jsonl`,
        SKILLHUB_ANALYTICS_FLUSH_SECONDS: "3600",
        GITHUB_TOKEN: token,
      },
    });
    // The server's token across the 2,000th character: scrubbed before the cut, so no part of it is kept.
    const comment = `${"a".repeat(1990)}${token}${"b".repeat(1980)}`;
    const result = await call("report_usage", { skill_path: "pdf", useful: false, comment });
    expect(result.structuredContent).toEqual({
      recorded: true,
      message: "Feedback recorded for pdf; its comment was cut to its first 2,000 characters",
    });
    const [line, ...others] = logger.lines.filter((l) => l.includes("feedback on"));
    expect(others).toEqual([]);
    expect(line).toContain(`feedback on "pdf": not useful: "${"a".repeat(200)}…"`);
    expect(line?.length).toBeLessThan(300);
    const [event] = hub.analytics.tracker.drain();
    const kept = event?.data.comment as string;
    expect(kept).toBe(`${"a".repeat(1990)}***${"b".repeat(7)}… [1973 more characters cut]`);
    expect(kept).not.toContain("ghp_");
  });

  test("a session gets 10 reports at once, then one every 6 s; beyond, RATE_LIMITED, nothing logged or queued; other sessions are not held", async () => {
    const clock = manualClock();
    const { handler, hub, logger, close } = await feedbackHub({ now: clock.now });
    const a = await httpClient(handler, "2025-11-25");
    const b = await httpClient(handler, "2025-11-25");
    closers.push(async () => {
      await a.close();
      await b.close();
      await close();
    });
    for (let i = 0; i < 10; i++) expect((await report(a)).isError).toBeFalsy();
    const refused = await report(a);
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toEqual({
      error: {
        code: "RATE_LIMITED",
        message:
          "Feedback on pdf was not recorded: this client sent more reports than report_usage takes (10 at once, then 10 a minute). Report once per skill you used, with everything about it in one comment; to send this one, call again in 6 s.",
        skill_path: "pdf",
        retry_after_seconds: 6,
      },
    });
    expect(hub.analytics.tracker.pending).toBe(10);
    expect(logger.lines.filter((l) => l.includes("feedback on"))).toHaveLength(10);
    // Another session is not held by A's reports.
    expect((await report(b)).isError).toBeFalsy();
    // Six seconds later A may send one more, and only one.
    clock.advance(6_000);
    expect((await report(a)).isError).toBeFalsy();
    expect((await report(a)).structuredContent).toMatchObject({ error: { code: "RATE_LIMITED" } });
    expect(hub.analytics.tracker.pending).toBe(12);
  });

  test.each([
    ["2025-11-25", true],
    ["2026-07-28", false],
  ] as const)(
    "%s without a session (stateless: %p): reports are counted by the client's address, 60 at once, then 60 a minute",
    async (revision, stateless) => {
      const clock = manualClock();
      const { handler, hub, close } = await feedbackHub({ now: clock.now }, stateless);
      const first = await httpClient(handler, revision, { peer: "10.0.0.1" });
      const again = await httpClient(handler, revision, { peer: "10.0.0.1" });
      const other = await httpClient(handler, revision, { peer: "10.0.0.2" });
      closers.push(async () => {
        for (const c of [first, again, other]) await c.close();
        await close();
      });
      // Everyone behind a reverse proxy shares one address: six times a session's reports.
      for (let i = 0; i < 60; i++) expect((await report(first)).isError).toBeFalsy();
      // A new client from the same address shares its budget; another address has its own.
      expect((await report(again)).structuredContent).toEqual({
        error: {
          code: "RATE_LIMITED",
          message:
            "Feedback on pdf was not recorded: this client sent more reports than report_usage takes (60 at once, then 60 a minute). Report once per skill you used, with everything about it in one comment; to send this one, call again in 1 s.",
          skill_path: "pdf",
          retry_after_seconds: 1,
        },
      });
      expect((await report(other)).isError).toBeFalsy();
      expect(hub.analytics.tracker.pending).toBe(61);
      clock.advance(1_000);
      expect((await report(again)).isError).toBeFalsy();
      expect((await report(first)).structuredContent).toMatchObject({ error: { code: "RATE_LIMITED" } });
    },
  );

  test("new sessions from one address put at most its share in the queue (a tenth of it); another address's all land", async () => {
    // A queue of 300 events: an address's share is 30, three sessions' worth of reports.
    const clock = manualClock();
    const { handler, hub, logger, close } = await feedbackHub({ now: clock.now }, false, {
      analytics: { max_queue: 300 },
    });
    closers.push(close);
    const session = async (peer: string) => {
      const client = await httpClient(handler, "2025-11-25", { peer });
      closers.unshift(() => client.close());
      return client;
    };
    // The loop that escapes a limit per session: a new session whenever RATE_LIMITED comes back. Every
    // loopback address is one client, as the session table counts them.
    const peers = ["127.0.0.1", "127.0.0.2", "::1"];
    let recorded = 0;
    let refused: Awaited<ReturnType<typeof report>> | undefined;
    for (let s = 0; s < 8; s++) {
      const client = await session(peers[s % peers.length] as string);
      for (;;) {
        const answer = await report(client);
        if (answer.isError) {
          refused = answer;
          break;
        }
        recorded++;
      }
    }
    expect(recorded).toBe(30);
    expect(hub.analytics.tracker.pending).toBe(30);
    expect(refused?.structuredContent).toEqual({
      error: {
        code: "RATE_LIMITED",
        message:
          "Feedback on pdf was not recorded: clients at this address sent more analytics events than one address may before they are next sent (every 3600 s). Report once per skill you used; to send this one, call again in 3600 s.",
        skill_path: "pdf",
        retry_after_seconds: 3600,
      },
    });
    expect(logger.lines.filter((l) => l.includes("feedback on"))).toHaveLength(30);
    // Another address loses nothing.
    const colleague = await session("10.0.0.2");
    for (let i = 0; i < 10; i++) expect((await report(colleague)).isError).toBeFalsy();
    expect(hub.analytics.tracker.pending).toBe(40);
    // A flush starts a new window: the address may queue again.
    hub.analytics.tracker.drain();
    expect((await report(await session("127.0.0.1"))).isError).toBeFalsy();
    expect(hub.analytics.tracker.pending).toBe(1);
  });
});

describe("report_usage says so when its report cannot be queued", () => {
  test("the whole queue full: SERVER_BUSY with the flush interval, nothing kept or counted; after a flush the report lands", async () => {
    const file = `${tempDir()}/events.jsonl`;
    const { call, hub, logger } = await open({
      env: { SKILLHUB_ANALYTICS_FILE: file, SKILLHUB_ANALYTICS_FLUSH_SECONDS: "3600" },
      configFile: { analytics: { max_queue: 2 } },
    });
    const notUseful = (comment: string) => call("report_usage", { skill_path: "pdf", useful: false, comment });
    expect((await notUseful("first")).structuredContent).toEqual({
      recorded: true,
      message: "Feedback recorded for pdf",
    });
    expect((await notUseful("second")).structuredContent).toEqual({
      recorded: true,
      message: "Feedback recorded for pdf",
    });
    const refused = await notUseful("third");
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toEqual({
      error: {
        code: "SERVER_BUSY",
        message:
          "Feedback on pdf was not recorded: the server's analytics queue is full (2 events of all its clients wait to be sent), and it empties when they are next sent (every 3600 s). To send this report, call again in 3600 s.",
        skill_path: "pdf",
        retry_after_seconds: 3600,
      },
    });
    expect(JSON.parse(textOf(refused))).toEqual(refused.structuredContent as Record<string, unknown>);
    // Nothing of the refused report was kept: no feedback line, and it is not the third "not useful" report.
    expect(logger.lines.filter((l) => l.includes("feedback on"))).toHaveLength(2);
    expect(logger.lines.filter((l) => l.includes('reported "not useful"'))).toEqual([]);
    expect(hub.analytics.tracker.dropped).toBe(1);
    // The flush writes the queue and says what it dropped; the report, sent again, lands with the next one.
    await hub.analytics.publisher?.flush();
    expect(logger.lines.filter((l) => l.includes("dropped while the queue was full"))).toEqual([
      expect.stringContaining("analytics: 1 event was dropped while the queue was full."),
    ]);
    expect((await notUseful("third")).structuredContent).toEqual({
      recorded: true,
      message: "Feedback recorded for pdf",
    });
    await hub.analytics.publisher?.flush();
    expect(readJsonlFile(file).events.map((e) => e.data.comment)).toEqual(["first", "second", "third"]);
    expect(logger.lines.filter((l) => l.includes('reported "not useful" 3 times'))).toHaveLength(1);
  });

  test("over HTTP a queue other addresses filled is SERVER_BUSY; an address past its own share is RATE_LIMITED", async () => {
    // A queue of 10 events: an address's share is 1, so ten addresses fill it.
    const { handler, hub, close } = await feedbackHub({}, false, { analytics: { max_queue: 10 } });
    closers.push(close);
    const client = async (peer: string) => {
      const c = await httpClient(handler, "2025-11-25", { peer });
      closers.unshift(() => c.close());
      return c;
    };
    const first = await client("10.0.0.1");
    expect((await report(first)).structuredContent).toMatchObject({ recorded: true });
    for (let n = 2; n <= 10; n++) expect((await report(await client(`10.0.0.${n}`))).isError).toBeFalsy();
    expect(hub.analytics.tracker.pending).toBe(10);
    const late = await report(await client("10.0.0.11"));
    expect(late.isError).toBe(true);
    expect(late.structuredContent).toMatchObject({ error: { code: "SERVER_BUSY", retry_after_seconds: 3600 } });
    expect((await report(first)).structuredContent).toMatchObject({
      error: { code: "RATE_LIMITED", retry_after_seconds: 3600 },
    });
    expect(hub.analytics.tracker.pending).toBe(10);
  });

  test("a report the server fails to queue is INTERNAL_ERROR, not recorded", async () => {
    // A clock that gives no valid time: the event cannot be stamped.
    const { call, hub, logger } = await open({
      env: { SKILLHUB_ANALYTICS_FILE: `${tempDir()}/events.jsonl`, SKILLHUB_ANALYTICS_FLUSH_SECONDS: "3600" },
      hub: { analytics: { now: () => Number.NaN } },
    });
    const result = await call("report_usage", { skill_path: "pdf", useful: false });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      error: {
        code: "INTERNAL_ERROR",
        message:
          "Feedback on pdf was not recorded: SkillHub failed to queue it (its log says why, at debug level). Retry once; if it fails again, tell the user.",
        skill_path: "pdf",
      },
    });
    expect(hub.analytics.tracker.pending).toBe(0);
    expect(logger.lines.filter((l) => l.includes("feedback on"))).toEqual([]);
    expect(logger.lines.some((l) => l.includes("analytics event skill_feedback not recorded"))).toBe(true);
  });
});

/** An HTTP hub offering report_usage, analytics kept in memory until the test reads them. */
async function feedbackHub(hub: Partial<HubOptions>, stateless = false, configFile?: Record<string, unknown>) {
  const dir = tempDir();
  writeSkill(dir, "pdf");
  return httpHub([dir], {
    hub,
    stateless,
    configFile,
    env: { SKILLHUB_ANALYTICS_FILE: `${tempDir()}/events.jsonl`, SKILLHUB_ANALYTICS_FLUSH_SECONDS: "3600" },
  });
}

function report(client: Client) {
  return client.callTool({ name: "report_usage", arguments: { skill_path: "pdf", useful: true } }) as Promise<
    CallToolResult & { structuredContent?: Record<string, unknown> }
  >;
}

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
