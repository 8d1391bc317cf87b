import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, renameSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AnalyticsEvent, EventType } from "../../src/analytics/event.ts";
import { parseJsonl, toJsonl } from "../../src/analytics/jsonl.ts";
import { summarize, type UsageTally } from "../../src/analytics/stats.ts";
import { MAX_LINE_BYTES, UsageFile } from "../../src/analytics/usage-file.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";

afterAll(cleanupTemp);

/** A seeded generator: a failing sequence can be replayed from its seed. */
function random(seed: number) {
  let s = seed;
  const next = () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]) => xs[int(xs.length)] as T;
  return { next, int, pick };
}

const SKILLS = ["pdf", "ui/react/auth", "Déploiement", "日本語-skill", "git", "deploy/docker"];
const QUERIES = ["kubernetes helm", "Kubernetes  Helm", "résumé pdf", "検索", "auth sso"];

function randomEvent(r: ReturnType<typeof random>): AnalyticsEvent {
  const type = r.pick<EventType>([
    "skill_served",
    "skill_loaded",
    "no_match",
    "search",
    "ambiguous",
    "skill_feedback",
    "asset_served",
    "script_executed",
    "refresh",
  ]);
  const timestamp = new Date(Date.UTC(2026, 10, 1) + r.int(40 * 86_400_000)).toISOString();
  const skill = r.pick(SKILLS);
  const data: Record<string, Record<string, unknown>> = {
    skill_served: { context: r.pick(QUERIES), skill_path: skill, score: r.int(1000) / 1000 },
    skill_loaded: { tool: "skill", skill },
    no_match: { context: r.pick(QUERIES), closest_candidate: skill },
    search: { query: r.pick(QUERIES), results: r.int(3) },
    ambiguous: { context: r.pick(QUERIES), candidates: [skill, r.pick(SKILLS)] },
    skill_feedback: { skill_path: skill, useful: r.next() < 0.5, comment: r.pick([null, "pas clair", "missing SSO"]) },
    asset_served: { skill_path: skill, file: r.pick(["a.md", "b.tsx"]) },
    script_executed: { skill_path: skill, file: "run.sh", success: r.next() < 0.7, duration_ms: r.int(900) },
    refresh: { mode: "git", success: true },
  };
  return { type, timestamp, server_id: "dev-alice", data: data[type] as Record<string, unknown> };
}

/** Lines as a file holds them: events, and now and then a line that is not one. */
function randomLines(r: ReturnType<typeof random>, n: number): string {
  let text = "";
  for (let i = 0; i < n; i++) {
    const roll = r.next();
    if (roll < 0.05) text += "not json at all\n";
    else if (roll < 0.08) text += '{"type":"unknown","timestamp":"x","server_id":"y","data":{}}\n';
    else if (roll < 0.1) text += "\n";
    else text += toJsonl([randomEvent(r)]);
  }
  return text;
}

/** Everything a tally answers, as plain values. */
function snapshot(tally: UsageTally) {
  return {
    summary: tally.summary({ catalog: SKILLS, limit: 1000 }),
    daily: [...tally.daily].map(([skill, days]) => [skill, [...days]]),
    lastLoadMs: tally.lastLoadMs,
  };
}

async function fullRead(path: string) {
  const file = new UsageFile(path);
  await file.update();
  return file;
}

describe("an analytics file followed: only appended bytes are read", () => {
  test("after random appends cut anywhere (inside a line, inside a character), the tally equals one full read's", async () => {
    const dir = tempDir("skillhub-usage-file-");
    for (let seed = 1; seed <= 40; seed++) {
      const r = random(seed);
      const path = join(dir, `analytics-${seed}.jsonl`);
      const bytes = Buffer.from(randomLines(r, 30 + r.int(120)));
      writeFileSync(path, "");
      // Small chunks, so that chunk ends fall inside lines and characters too.
      const followed = new UsageFile(path, { chunkBytes: 7 + r.int(200) });
      let at = 0;
      while (at < bytes.length) {
        const next = Math.min(bytes.length, at + 1 + r.int(400));
        appendFileSync(path, bytes.subarray(at, next));
        at = next;
        // Sometimes two readers ask at once, sometimes nobody asks before the next append.
        if (r.next() < 0.2) await Promise.all([followed.update(), followed.update()]);
        else if (r.next() < 0.8) await followed.update();
      }
      await followed.update();
      const whole = await fullRead(path);
      const parsed = parseJsonl(bytes.toString("utf8"));
      expect({ seed, ...snapshot(followed.tally) }).toEqual({ seed, ...snapshot(whole.tally) });
      expect({ seed, malformed: followed.malformed }).toEqual({ seed, malformed: parsed.malformed });
      expect(followed.tally.summary({ catalog: SKILLS, limit: 1000 })).toEqual(
        summarize(parsed.events, { catalog: SKILLS, limit: 1000 }),
      );
      expect(followed.offset).toBe(bytes.length);
    }
  });

  test("an update asked for during a read sees what was appended after that read began", async () => {
    const path = join(tempDir("skillhub-usage-file-"), "analytics.jsonl");
    const r = random(11);
    writeFileSync(path, toJsonl(Array.from({ length: 2_000 }, () => randomEvent(r))));
    const file = new UsageFile(path, { chunkBytes: 64 });
    const first = file.update();
    for (let polls = 0; file.offset === 0 && polls < 1_000_000; polls++) await Bun.sleep(0);
    expect(file.offset).toBeGreaterThan(0);
    appendFileSync(path, toJsonl([randomEvent(r)]));
    const second = file.update();
    await Promise.all([first, second]);
    expect(file.tally.events).toBe(2_001);
    expect(file.offset).toBe(readFileSync(path).length);
  });

  test("a line being written is read once its newline is there: never lost, never counted twice", async () => {
    const path = join(tempDir("skillhub-usage-file-"), "analytics.jsonl");
    const r = random(7);
    const first = toJsonl([randomEvent(r)]);
    const line = toJsonl([{ ...randomEvent(r), type: "skill_loaded", data: { skill: "pdf" } }]);
    writeFileSync(path, first + line.slice(0, 25));
    const file = new UsageFile(path);
    await file.update();
    expect(file.tally.events).toBe(1);
    expect(file.malformed).toBe(0);
    appendFileSync(path, line.slice(25, -1));
    await file.update();
    expect(file.tally.events).toBe(1);
    appendFileSync(path, "\n");
    await file.update();
    await file.update();
    expect(file.tally.events).toBe(2);
    expect(file.malformed).toBe(0);
    expect(file.tally.summary().most_used.find((u) => u.skill === "pdf")?.loaded).toBeGreaterThanOrEqual(1);
    expect(file.offset).toBe(Buffer.byteLength(first + line));
  });

  test("a rotated file (moved aside, a new one in its place, even a larger one) is read from its start", async () => {
    const dir = tempDir("skillhub-usage-file-");
    const path = join(dir, "analytics.jsonl");
    const r = random(11);
    writeFileSync(path, randomLines(r, 20));
    const file = new UsageFile(path);
    await file.update();
    renameSync(path, `${path}.1`);
    const fresh = toJsonl(Array.from({ length: 60 }, () => randomEvent(r)));
    writeFileSync(path, fresh);
    await file.update();
    expect(snapshot(file.tally)).toEqual(snapshot((await fullRead(path)).tally));
    expect(file.tally.events).toBe(60);
    expect(file.malformed).toBe(0);
  });

  test("a file replaced by an edited copy (same first lines, another file) is read from its start", async () => {
    const dir = tempDir("skillhub-usage-file-");
    const path = join(dir, "analytics.jsonl");
    const r = random(12);
    const events = Array.from({ length: 30 }, () => randomEvent(r));
    writeFileSync(path, toJsonl(events));
    const file = new UsageFile(path);
    await file.update();
    // Lines 11-20 removed, 25 added: more bytes than were read, and the same start.
    const edited = [...events.slice(0, 10), ...events.slice(20), ...Array.from({ length: 25 }, () => randomEvent(r))];
    writeFileSync(`${path}.new`, toJsonl(edited));
    renameSync(`${path}.new`, path);
    await file.update();
    expect(snapshot(file.tally)).toEqual(snapshot((await fullRead(path)).tally));
    expect(file.tally.events).toBe(45);
  });

  test("a truncated file, or one rewritten in place (copy-truncate), is read from its start", async () => {
    const path = join(tempDir("skillhub-usage-file-"), "analytics.jsonl");
    const r = random(13);
    const events = Array.from({ length: 40 }, () => randomEvent(r));
    writeFileSync(path, toJsonl(events));
    const file = new UsageFile(path);
    await file.update();
    // Cut to its first five lines (the same start, fewer bytes), then one more event.
    truncateSync(path, Buffer.byteLength(toJsonl(events.slice(0, 5))));
    appendFileSync(path, toJsonl([randomEvent(r)]));
    await file.update();
    expect(file.tally.events).toBe(6);
    expect(snapshot(file.tally)).toEqual(snapshot((await fullRead(path)).tally));
    truncateSync(path, 0);
    appendFileSync(path, toJsonl(Array.from({ length: 3 }, () => randomEvent(r))));
    await file.update();
    expect(file.tally.events).toBe(3);
    // Same file, more bytes than were read, other first bytes: not an append.
    const rewritten = toJsonl(Array.from({ length: 50 }, () => randomEvent(r)));
    writeFileSync(path, rewritten);
    await file.update();
    expect(file.tally.events).toBe(50);
    expect(snapshot(file.tally)).toEqual(snapshot((await fullRead(path)).tally));
  });

  test("malformed lines are skipped and counted; a line longer than any event is one of them", async () => {
    const path = join(tempDir("skillhub-usage-file-"), "analytics.jsonl");
    const r = random(17);
    const good = toJsonl([randomEvent(r), randomEvent(r)]);
    writeFileSync(path, `${good}{"broken": \n${"x".repeat(MAX_LINE_BYTES + 10)}\n${good}`);
    const file = new UsageFile(path, { chunkBytes: 65_536 });
    await file.update();
    expect(file.tally.events).toBe(4);
    expect(file.malformed).toBe(2);
    expect(file.offset).toBe(readFileSync(path).length);
  });

  test("a missing file has no events and no problem; a folder in its place is named, never read", async () => {
    const dir = tempDir("skillhub-usage-file-");
    const missing = new UsageFile(join(dir, "none.jsonl"));
    await missing.update();
    expect([missing.present, missing.problem, missing.tally.events]).toEqual([false, undefined, 0]);
    const folder = new UsageFile(dir);
    await folder.update();
    expect(folder.present).toBe(false);
    expect(folder.problem).toContain(`'${dir}' is not a regular file`);
  });
});
