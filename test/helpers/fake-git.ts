import { chmodSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, write } from "./fs.ts";
import { GIT_ENV } from "./git.ts";

/** The real git, for fake ones that hand over to it. */
export const REAL_GIT = Bun.which("git") ?? "/usr/bin/git";

export interface FakeGit {
  /** Folder of the script (first on PATH in `env`) and of what it records. */
  dir: string;
  /** GIT_ENV with the fake first on PATH. */
  env: Record<string, string | undefined>;
  /** Pids the script recorded in `$FAKE_GIT_DIR/children` (background helpers it started). */
  children(): number[];
  /** Lines the script appended to `$FAKE_GIT_DIR/<name>`. */
  lines(name: string): string[];
}

/**
 * An executable `git` shell script on a PATH the test controls. It answers
 * `--version` itself (2.45.0) and runs `body` for everything else, with
 * `$FAKE_GIT_DIR` naming its folder and `$REAL_GIT` the real git.
 */
export function fakeGit(body: string): FakeGit {
  const dir = tempDir("skillhub-fake-git-");
  const script = write(
    join(dir, "git"),
    `#!/bin/sh\nFAKE_GIT_DIR='${dir}'\nREAL_GIT='${REAL_GIT}'\nif [ "$1" = "--version" ]; then echo "git version 2.45.0"; exit 0; fi\n${body}\n`,
  );
  chmodSync(script, 0o755);
  const read = (name: string) => {
    const file = join(dir, name);
    return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
  };
  return {
    dir,
    env: { ...GIT_ENV, PATH: `${dir}:${process.env.PATH ?? ""}` },
    children: () => read("children").map(Number),
    lines: read,
  };
}

/** A git whose every command hangs in a helper child that keeps stdout and stderr open (like git-remote-https). */
export const HANGING_GIT = 'sleep 300 &\necho $! >> "$FAKE_GIT_DIR/children"\nwait';

/** SIGKILL the pids a fake recorded (test cleanup; each one is a process this test started). */
export function killRecorded(fake: FakeGit): void {
  for (const pid of fake.children()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
