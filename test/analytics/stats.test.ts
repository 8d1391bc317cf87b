import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { AnalyticsEvent, EventType } from "../../src/analytics/event.ts";
import { COMMENTS_KEPT, summarize, TEXTS_KEPT, UsageTally } from "../../src/analytics/stats.ts";
import { run } from "../../src/cli.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);

let clock = Date.UTC(2026, 1, 10);
function ev(type: EventType, data: Record<string, unknown>, at?: string): AnalyticsEvent {
  clock += 60_000;
  return { type, timestamp: at ?? new Date(clock).toISOString(), server_id: "dev-alice", data };
}

const EVENTS: AnalyticsEvent[] = [
  ev("skill_served", {
    context: "react auth component",
    skill_path: "ui/react/auth",
    score: 0.8,
    matched_keywords: ["react", "auth"],
    was_ambiguous: false,
  }),
  ev("skill_served", { context: "auth in react", skill_path: "ui/react/auth", score: 0.6 }),
  ev("skill_loaded", { tool: "skill", skill: "pdf", source: "dir1" }),
  ev("skill_loaded", { tool: "load_skill", skill: "ui/react/auth" }),
  ev("no_match", { context: "configure nginx reverse proxy", closest_candidate: "deploy/docker", closest_score: 0.12 }),
  ev("no_match", { context: "Configure  nginx reverse proxy" }),
  ev("search", { tool: "search_skills", query: "kubernetes helm", results: 0 }),
  ev("search", { tool: "search_skills", query: "pdf", results: 2 }),
  ev("ambiguous", { context: "auth", candidates: ["ui/react/auth", "api/auth"] }),
  ev("skill_feedback", { skill_path: "ui/react/auth", useful: false, comment: "Ne couvre pas le cas SSO" }),
  ev("skill_feedback", { skill_path: "ui/react/auth", useful: true, comment: null }),
  ev("skill_feedback", { skill_path: "pdf", useful: true }),
  ev("asset_served", {
    skill_path: "ui/react/auth",
    file: "assets/AuthProvider.tsx.template",
    asset_type: "template",
    is_inherited: false,
    size_bytes: 2340,
  }),
  ev("script_executed", {
    skill_path: "deploy/docker",
    file: "scripts/setup.sh",
    execution_mode: "server",
    success: false,
    exit_code: 1,
    duration_ms: 300,
  }),
  ev("script_executed", {
    skill_path: "deploy/docker",
    file: "scripts/setup.sh",
    execution_mode: "server",
    success: true,
    exit_code: 0,
    duration_ms: 100,
  }),
  ev("refresh", { mode: "git", success: true }),
];

describe("usage summary", () => {
  test("derives the metrics local events support", () => {
    const s = summarize(EVENTS, { catalog: ["pdf", "ui/react/auth", "git", "deploy/docker"] });
    expect(s.events).toBe(16);
    expect(s.most_used).toEqual([
      { skill: "ui/react/auth", uses: 3, served: 2, loaded: 1, average_score: 0.7 },
      { skill: "pdf", uses: 1, served: 0, loaded: 1, average_score: null },
    ]);
    expect(s.never_used).toEqual(["deploy/docker", "git"]);
    expect(s.no_match).toEqual([{ context: "configure nginx reverse proxy", count: 2, closest: "deploy/docker" }]);
    expect(s.failed_searches).toEqual([{ query: "kubernetes helm", count: 1 }]);
    expect(s.ambiguous).toEqual([{ context: "auth", count: 1, candidates: ["ui/react/auth", "api/auth"] }]);
    expect(s.feedback[0]).toEqual({
      skill: "ui/react/auth",
      useful: 1,
      not_useful: 1,
      not_useful_rate: 0.5,
      comments: ["Ne couvre pas le cas SSO"],
    });
    expect(s.assets).toEqual([{ skill: "ui/react/auth", file: "assets/AuthProvider.tsx.template", count: 1 }]);
    expect(s.scripts).toEqual([
      {
        skill: "deploy/docker",
        file: "scripts/setup.sh",
        runs: 2,
        failures: 1,
        failure_rate: 0.5,
        average_duration_ms: 200,
      },
    ]);
    expect(s.execution_modes).toEqual({ server: 2 });
    expect(s.period.from).toBe(EVENTS[0]?.timestamp ?? "");
  });
});

describe("usage tally", () => {
  const tallyOf = (events: readonly AnalyticsEvent[]) => {
    const tally = new UsageTally();
    for (const e of events) tally.add(e);
    return tally;
  };
  const catalog = ["pdf", "ui/react/auth", "git", "deploy/docker"];

  test("two files' tallies merged equal the tally of all their events, wherever the files split", () => {
    const all = [...EVENTS, ...EVENTS.slice(3, 9), ...EVENTS.slice(12)];
    const whole = tallyOf(all);
    for (let cut = 0; cut <= all.length; cut++) {
      const merged = tallyOf(all.slice(0, cut)).merge(tallyOf(all.slice(cut)));
      expect({ cut, summary: merged.summary({ catalog }) }).toEqual({ cut, summary: whole.summary({ catalog }) });
      expect([...merged.daily].map(([k, v]) => [k, [...v]])).toEqual([...whole.daily].map(([k, v]) => [k, [...v]]));
      expect(merged.lastLoadMs).toBe(whole.lastLoadMs);
    }
    // Merging copies: the tally merged from is left as it was.
    const part = tallyOf(EVENTS.slice(0, 4));
    const before = part.summary({ catalog });
    new UsageTally().merge(part).add(EVENTS[0] as AnalyticsEvent);
    expect(part.summary({ catalog })).toEqual(before);
  });

  test("negative feedback keeps its latest comments, not every one", () => {
    const reports = Array.from({ length: COMMENTS_KEPT + 5 }, (_, i) =>
      ev("skill_feedback", { skill_path: "pdf", useful: false, comment: `comment ${i}` }),
    );
    const half = Math.floor(reports.length / 2);
    for (const tally of [tallyOf(reports), tallyOf(reports.slice(0, half)).merge(tallyOf(reports.slice(half)))]) {
      const [pdf] = tally.summary().feedback;
      expect(pdf?.not_useful).toBe(COMMENTS_KEPT + 5);
      expect(pdf?.comments).toHaveLength(COMMENTS_KEPT);
      expect(pdf?.comments.at(-1)).toBe(`comment ${COMMENTS_KEPT + 4}`);
      expect(pdf?.comments[0]).toBe("comment 5");
    }
  });

  test("texts clients make up keep at most twice TEXTS_KEPT each; a text asked again and again keeps its count", () => {
    // A client sending a new query (or get_skill context) every time, with one real gap asked now and then.
    const spam = (n: number, from: number) =>
      Array.from({ length: n }, (_, i) => [
        ev("search", { query: `made up ${from + i}`, results: 0 }),
        ev("no_match", { context: `made up ${from + i}` }),
        ev("ambiguous", { context: `made up ${from + i}`, candidates: ["pdf", "git"] }),
      ]).flat();
    const asked = [
      ev("search", { query: "kubernetes helm", results: 0 }),
      ev("no_match", { context: "nginx reverse proxy" }),
      ev("ambiguous", { context: "auth", candidates: ["ui/react/auth", "api/auth"] }),
    ];
    const events: AnalyticsEvent[] = [];
    for (let round = 0; round < 6; round++) events.push(...spam(TEXTS_KEPT / 2, round * TEXTS_KEPT), ...asked);
    const half = Math.floor(events.length / 2);
    for (const tally of [tallyOf(events), tallyOf(events.slice(0, half)).merge(tallyOf(events.slice(half)))]) {
      const all = tally.summary({ limit: Number.POSITIVE_INFINITY });
      for (const list of [all.failed_searches, all.no_match, all.ambiguous]) {
        expect(list.length).toBeGreaterThanOrEqual(TEXTS_KEPT);
        expect(list.length).toBeLessThanOrEqual(2 * TEXTS_KEPT);
      }
      expect(all.failed_searches[0]).toEqual({ query: "kubernetes helm", count: 6 });
      expect(all.no_match[0]).toMatchObject({ context: "nginx reverse proxy", count: 6 });
      expect(all.ambiguous[0]).toMatchObject({ context: "auth", count: 6 });
      expect(all.events).toBe(events.length);
    }
  });
});

describe("skillhub stats", () => {
  async function cli(argv: string[], env: Record<string, string>) {
    let out = "";
    let err = "";
    const home = tempDir("skillhub-cli-home-");
    const code = await run(
      argv,
      { HOME: home, ...env },
      { out: (t) => void (out += t), err: (t) => void (err += t), cwd: home },
    );
    return { code, out, err };
  }

  function setup() {
    const dir = tempDir();
    writeSkill(dir, "pdf");
    writeSkill(dir, "git");
    const file = join(tempDir(), "events.jsonl");
    write(file, `${EVENTS.map((e) => JSON.stringify(e)).join("\n")}\nnot json\n`);
    return { dir, file };
  }

  test("prints most and never used skills, failed requests, negative feedback and script failure rates", async () => {
    const { dir, file } = setup();
    const { code, out } = await cli(["stats", "--skills-dir", dir], { SKILLHUB_ANALYTICS_FILE: file });
    expect(code).toBe(0);
    expect(out).toContain("16 events from 2026-02-10T00:01:00.000Z");
    expect(out).toContain("(1 unreadable lines skipped)");
    expect(out).toMatch(/Most used skills:\n\s+3 {2}ui\/react\/auth {2}\(average match score 0.7\)\n\s+1 {2}pdf/);
    expect(out).toMatch(/Never used skills \(1\):\n\s+git\n/);
    expect(out).toContain('2  "configure nginx reverse proxy"  (closest: deploy/docker)');
    expect(out).toContain('1  "kubernetes helm"');
    expect(out).toContain("1  ui/react/auth  (50% of 2 reports not useful)\n         - Ne couvre pas le cas SSO");
    expect(out).toContain("50%  deploy/docker: scripts/setup.sh  (1/2 failed, 200 ms on average)");
  });

  test("--json, --since, and files given on the command line", async () => {
    const { dir, file } = setup();
    const json = JSON.parse((await cli(["stats", "--json", "--skills-dir", dir, file], {})).out);
    expect(json).toMatchObject({ events: 16, malformed_lines: 1, files: [file], never_used: ["git"] });
    const since = EVENTS[13]?.timestamp ?? "";
    const recent = JSON.parse((await cli(["stats", "--json", "--since", since, file], {})).out);
    expect(recent.events).toBe(3);
    expect(recent.by_type).toEqual({ script_executed: 2, refresh: 1 });
    // A time ago: the fixed events of February 2026 are older than a week, one written now is not.
    const now = tempDir("skillhub-stats-now-");
    const fresh = join(now, "events.jsonl");
    write(
      fresh,
      [...EVENTS.slice(0, 2), ev("refresh", {}, new Date().toISOString())].map((e) => JSON.stringify(e)).join("\n"),
    );
    for (const ago of ["7d", "12h", "2w", "90m"])
      expect(JSON.parse((await cli(["stats", "--json", "--since", ago, fresh], {})).out).events).toBe(1);
    const bad = await cli(["stats", "--since", "last tuesday", file], {});
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--since");
  });

  test("with no data it says how to turn local analytics on", async () => {
    const { code, out } = await cli(["stats"], {});
    expect(code).toBe(0);
    expect(out).toStartWith("No analytics events to show: no analytics file is configured.\n");
    expect(out).toContain("SKILLHUB_ANALYTICS_FILE");
  });
});
