import { afterAll, describe, expect, test } from "bun:test";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { HANG_MS } from "../helpers/wait.ts";

afterAll(cleanupTemp);
const bin = binary();

describe("CLI output into a pipe that closes early", () => {
  test("`skillhub list | head -c 100` ends: the command stops when the reader is gone", async () => {
    const home = tempDir("skillhub-pipe-home-");
    const skills = tempDir("skillhub-pipe-skills-");
    // Far more output than a pipe holds (64 KiB), so writes continue after head has exited.
    for (let i = 0; i < 600; i++)
      writeSkill(skills, `pipe-skill-${i}`, { description: `Skill number ${i} ${"padding words ".repeat(20)}` });
    const proc = Bun.spawn(["sh", "-c", `"${bin}" list --skills-dir "${skills}" | head -c 100`], {
      env: { PATH: process.env.PATH ?? "", HOME: home },
      cwd: home,
      stdout: "pipe",
      stderr: "pipe",
    });
    // Hang detection only: before the fix the command never exited.
    const ended = await Promise.race([proc.exited.then(() => true), Bun.sleep(HANG_MS).then(() => false)]);
    if (!ended) proc.kill();
    expect(ended).toBe(true);
    expect((await new Response(proc.stdout).text()).length).toBe(100);
    expect(await new Response(proc.stderr).text()).not.toContain("unexpected error");
  });
});
