import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, constants, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { HANG_MS } from "../helpers/wait.ts";

afterAll(cleanupTemp);
const bin = binary();

describe("a server whose stderr reader goes away", () => {
  // A client that closes the stderr pipe (or dies): every later log line fails with EPIPE. Before the fix
  // that error re-entered the uncaught-error handler, which wrote to stderr again, for ever, at 100% CPU:
  // stdin's end and signals were never handled and the process outlived its client.
  test("still ends when stdin ends", async () => {
    const home = tempDir("skillhub-stderr-home-");
    const skills = tempDir("skillhub-stderr-skills-");
    writeSkill(skills, "one", { description: "A skill" });
    const fifo = join(home, "stderr.fifo");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY);
    const proc = Bun.spawn([bin, "--skills-dir", skills], {
      env: { PATH: process.env.PATH ?? "", HOME: home, LOG_LEVEL: "DEBUG" },
      cwd: home,
      stdin: "pipe",
      stdout: "ignore",
      stderr: writer,
    });
    closeSync(writer);
    // Wait for the first log line, then close the only reader: the next line meets EPIPE.
    const buffer = Buffer.alloc(4096);
    for (let read = 0; read === 0; ) {
      try {
        read = readSync(reader, buffer);
      } catch {
        await Bun.sleep(20);
      }
    }
    closeSync(reader);
    proc.stdin.end();
    // Hang detection only: before the fix the process never exited.
    const ended = await Promise.race([proc.exited.then(() => true), Bun.sleep(HANG_MS).then(() => false)]);
    if (!ended) proc.kill("SIGKILL");
    expect(ended).toBe(true);
    expect(proc.exitCode).toBe(0);
  });
});
