import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cleanupTemp, tempDir, write } from "./helpers/fs.ts";
import { within } from "./helpers/wait.ts";

afterAll(cleanupTemp);

const CLI = join(import.meta.dir, "..", "src", "cli.ts");
const DECOY = "decoy-Pa55word";

/**
 * Loaded before the CLI: once its last-resort handlers are set, an error nothing catches and a rejection
 * nothing handles, each with a line break and a URL password in its message; then the process ends.
 */
const PRELOAD = `
const on = process.on.bind(process);
process.on = ((event, listener) => {
  on(event, listener);
  if (event === "unhandledRejection") {
    void Promise.reject(new Error("fetch failed\\nfatal: https://ci:${DECOY}@git.example.invalid/team.git"));
    setTimeout(() => {
      throw new Error("clone failed\\n2026-12-01T04:44:00.000Z skillhub INFO  forged https://ci:${DECOY}@git.example.invalid/t.git");
    });
    setTimeout(() => process.exit(0));
  }
  return process;
}) as typeof process.on;
`;

describe("the CLI's last-resort handlers", () => {
  test("an uncaught error or unhandled rejection is one log line, its URL password hidden", async () => {
    const home = tempDir("skillhub-last-resort-");
    const preload = write(join(home, "preload.ts"), PRELOAD);
    const proc = Bun.spawn([process.execPath, "--preload", preload, CLI, "--skills-dir", home], {
      env: { PATH: process.env.PATH ?? "", HOME: home, LOG_LEVEL: "SILENT" },
      cwd: home,
      stdin: "pipe",
      stdout: "ignore",
      stderr: "pipe",
    });
    expect(await within(proc.exited, "the CLI's exit")).toBe(0);
    const lines = (await new Response(proc.stderr).text()).split(/\r|\n/).filter((line) => line !== "");
    const error = lines.filter((line) => line.includes("unexpected error: Error: clone failed"));
    const rejection = lines.filter((line) => line.includes("unexpected rejection: fetch failed"));
    expect([error.length, rejection.length]).toEqual([1, 1]);
    expect(error[0]).toMatch(
      /^\S+ skillhub ERROR unexpected error: Error: clone failed\\u000a2026-12-01T04:44:00\.000Z skillhub INFO {2}forged https:\/\/\*\*\*@git\.example\.invalid\/t\.git\\u000a {4}at /,
    );
    expect(rejection[0]).toMatch(
      / skillhub ERROR unexpected rejection: fetch failed\\u000afatal: https:\/\/\*\*\*@git\.example\.invalid\/team\.git$/,
    );
    expect(lines.filter((line) => line.startsWith("2026-12-01T04:44:00.000Z"))).toEqual([]);
    expect(lines.join("\n")).not.toContain(DECOY);
  });
});
