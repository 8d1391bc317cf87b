import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { eventually, sessions } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const open = sessions();

const names = (result: { structuredContent?: Record<string, any> }) =>
  (result.structuredContent?.skills ?? result.structuredContent?.results ?? []).map(
    (s: { meta: { name: string } }) => s.meta.name,
  );

/**
 * skills.list and skills.search answer from the disk as it is at the call: an add, a delete or an edit made just before
 * shows in the very next call, whether a watcher runs or not (the timer is off here, so nothing else
 * rescans in between).
 */
describe.each([
  ["without a watcher (--no-watch)", "0"],
  ["with the watcher", "1"],
])("skills.list and skills.search %s", (_, watch) => {
  test("an added skill is listed and found by the next call; a deleted one is gone from it; an edit shows", async () => {
    const dir = tempDir("skillhub-sk-fresh-");
    writeSkill(dir, "alpha", { description: "First skill" });
    const { call, logger } = await open({
      flags: { "skills-dir": [dir], tools: "sk" },
      env: { SKILLHUB_WATCH: watch, SKILLHUB_RESCAN_SECONDS: "0" },
    });
    expect(names(await call("skills.list", {}))).toEqual(["alpha"]);
    writeSkill(dir, "beta", { description: "Second skill, about zebras" });
    expect(names(await call("skills.list", {}))).toEqual(["alpha", "beta"]);
    expect(names(await call("skills.search", { query: "zebras" }))).toEqual(["beta"]);
    rmSync(join(dir, "alpha"), { recursive: true });
    expect(names(await call("skills.list", {}))).toEqual(["beta"]);
    writeSkill(dir, "beta", { description: "Second skill, now about giraffes" });
    expect(names(await call("skills.search", { query: "giraffes" }))).toEqual(["beta"]);
    // Nothing changed since: the check stats, and no scan follows. A watcher may still report the last edit,
    // which the next call then scans: that report is let in first.
    const scans = () => logger.lines.filter((l) => l.includes("scan (check")).length;
    await eventually(async () => {
      const settled = scans();
      await call("skills.list", {});
      return scans() === settled;
    });
    const before = scans();
    await call("skills.list", {});
    await call("skills.search", { query: "giraffes" });
    expect(scans()).toBe(before);
  });
});
