import { afterAll, describe, expect, test } from "bun:test";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";
import { HANG_MS } from "../helpers/wait.ts";

// Credentials in every URL form stay out of `sync --json`, `doctor` and the log.

afterAll(cleanupTemp);

describe("credentials in repository URLs, through the binary", () => {
  test("ssh://user:PASS@, https://user:TOKEN@ and https://TOKEN@ never printed by sync --json, doctor or the log", () => {
    const home = tempDir("skillhub-cred-home-");
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      LOG_LEVEL: "DEBUG",
      GIT_SSH_COMMAND: "false",
      SKILLS_REPO: [
        "ssh://deploy:SshPass0001@127.0.0.1:1/x.git",
        "https://tok:HttpsTok0002@127.0.0.1:1/y.git",
        "https://BareTok00003@127.0.0.1:1/z.git",
      ].join(","),
    };
    for (const args of [["sync", "--json"], ["doctor"], ["list", "--json"]]) {
      const run = Bun.spawnSync([binary(), ...args], { env, cwd: home, timeout: HANG_MS });
      const out = `${run.stdout.toString()}\n${run.stderr.toString()}`;
      // sync names the repositories it failed to reach (so the check above is not vacuous).
      if (args[0] === "sync") expect(out).toContain("ssh://deploy@127.0.0.1:1/x.git");
      for (const secret of ["SshPass0001", "HttpsTok0002", "BareTok00003"]) expect(out).not.toContain(secret);
    }
  }, 120_000);
});
