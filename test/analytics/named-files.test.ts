import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { EventBuffer } from "../../src/analytics/buffer.ts";
import type { AnalyticsEvent } from "../../src/analytics/event.ts";
import { appendJsonl, readJsonlFile, toJsonl } from "../../src/analytics/jsonl.ts";
import { Publisher } from "../../src/analytics/publisher.ts";
import { Tracker } from "../../src/analytics/tracker.ts";
import { run } from "../../src/cli.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";

afterAll(cleanupTemp);

const event = (skill: string): AnalyticsEvent => ({
  type: "skill_loaded",
  timestamp: "2026-03-01T10:00:00.000Z",
  server_id: "dev-test",
  data: { tool: "skill", skill },
});

function fifo(path: string): string {
  expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
  return path;
}

describe("analytics files are read and written without blocking, bounded, regular files only", () => {
  test("the local file as a FIFO nobody reads, or a link to /dev/zero: flush and shutdown end, a warning names it", async () => {
    for (const kind of ["fifo", "zero"] as const) {
      const dir = tempDir("skillhub-an-");
      const file = join(dir, "events.jsonl");
      if (kind === "fifo") fifo(file);
      else symlinkSync("/dev/zero", file);
      const logger = createMemoryLogger();
      const tracker = new Tracker({ enabled: true, maxQueue: 100, serverId: "dev-test", logger });
      const publisher = new Publisher({ tracker, logger, file, bufferFile: join(dir, "buffer.jsonl"), flushMs: 0 });
      tracker.track("skill_loaded", { tool: "skill", skill: "pdf" });
      await publisher.flush();
      tracker.track("skill_loaded", { tool: "skill", skill: "pdf" });
      await publisher.close();
      expect(logger.lines.join("\n")).toContain(`analytics: cannot write ${file}: '${file}' is not a regular file`);
    }
  });

  test("the buffer as a FIFO, or a link to /dev/zero: not written, claimed without a hang, no event from it", async () => {
    for (const kind of ["fifo", "zero"] as const) {
      const dir = tempDir("skillhub-an-");
      const file = join(dir, "analytics-buffer.jsonl");
      if (kind === "fifo") fifo(file);
      else symlinkSync("/dev/zero", file);
      const buffer = new EventBuffer(file);
      await expect(buffer.append([event("a")])).rejects.toThrow("is not a regular file");
      const claim = await buffer.claim();
      expect(claim?.events ?? []).toEqual([]);
      if (claim) await buffer.release(claim);
      // Moved aside when claimed: the next failure starts a fresh, regular buffer.
      expect(await buffer.append([event("b")])).toBe(0);
      expect(readJsonlFile(file).events.map((e) => e.data.skill)).toEqual(["b"]);
    }
  });

  test("a file over the cap is read up to its last whole line there, and says so", () => {
    const dir = tempDir("skillhub-an-");
    const file = write(join(dir, "big.jsonl"), toJsonl([event("a"), event("b"), event("c")]));
    const line = toJsonl([event("a")]).length;
    const read = readJsonlFile(file, line * 2 + 10);
    expect(read.events.map((e) => e.data.skill)).toEqual(["a", "b"]);
    expect(read.malformed).toBe(0);
    expect(read.problem).toBe(
      `'${file}' is ${line * 3} bytes; only its first ${line * 2 + 10} were read (rotate it to see the rest).`,
    );
  });

  test("appending to a regular file still works, with mode 0600", async () => {
    const dir = tempDir("skillhub-an-");
    const file = join(dir, "sub", "events.jsonl");
    await appendJsonl(file, [event("a")]);
    await appendJsonl(file, [event("b")]);
    expect(readFileSync(file, "utf8")).toBe(toJsonl([event("a"), event("b")]));
    expect((await Bun.file(file).stat()).mode & 0o777).toBe(0o600);
  });

  test("`stats` and `doctor` with the analytics file or buffer as a FIFO or /dev/zero: they answer, a warning names it", async () => {
    for (const kind of ["fifo", "zero"] as const) {
      const home = tempDir("skillhub-an-home-");
      const hub = join(home, ".skillhub");
      const file = join(hub, "analytics.jsonl");
      const buffer = join(hub, "analytics-buffer.jsonl");
      write(join(hub, "keep"), "");
      for (const path of [file, buffer]) {
        if (kind === "fifo") fifo(path);
        else symlinkSync("/dev/zero", path);
      }
      let out = "";
      let err = "";
      const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += t), cwd: home };
      const env = { HOME: home, SKILLHUB_ANALYTICS_FILE: file, SKILLHUB_RESCAN_SECONDS: "0" };
      expect(await run(["stats", "--json"], env, io)).toBe(0);
      expect(JSON.parse(out).events).toBe(0);
      expect(err).toContain(`skillhub stats: warning: '${file}' is `);
      expect(err).toContain(`skillhub stats: warning: '${buffer}' is `);
      out = "";
      expect(await run(["doctor", "--json"], env, io)).toBe(0);
      expect(JSON.parse(out).analytics.buffered_events).toBe(0);
    }
  });
});
