import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../src/cli.ts";
import { parseRepo } from "../../src/refresh/git/git-url.ts";
import { binaryClient } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { copyOf } from "../helpers/git.ts";

afterAll(cleanupTemp);

const REPO = "file:///srv/team-skills.git";

/** A home whose configured repository already has a copy on disk (as after an earlier sync). */
function home() {
  const dir = tempDir("skillhub-named-");
  const copy = join(dir, ".skillhub", "repos", parseRepo(REPO).slug);
  writeSkill(join(copy, "skills"), "team-one", { description: "From the team." });
  copyOf(copy, REPO);
  return { dir, copy };
}

/** Replace `path` by a FIFO, a link to a device, or a link to a file outside. */
function hostile(path: string, kind: "fifo" | "zero" | "stdin" | "outside"): void {
  mkdirSync(join(path, ".."), { recursive: true });
  if (kind === "fifo") expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
  else if (kind === "zero") symlinkSync("/dev/zero", path);
  else if (kind === "stdin") symlinkSync("/dev/stdin", path);
  else symlinkSync(write(join(tempDir("skillhub-elsewhere-"), "x.yaml"), "matching:\n  min_score: 0.9\n"), path);
}

async function cli(argv: string[], env: Record<string, string>, cwd: string) {
  let out = "";
  let err = "";
  const code = await run(argv, env, { out: (t) => void (out += t), err: (t) => void (err += t), cwd });
  return { code, out, err };
}

describe("config.yaml files go through the bounded reader", () => {
  test("the user's config.yaml as /dev/zero, a FIFO or over 1 MiB stops start-up, naming the file and what is wrong", async () => {
    for (const [kind, says] of [
      ["zero", "is a character device, not a regular file."],
      ["fifo", "is a FIFO (named pipe), not a regular file."],
      ["big", "is 2097152 bytes; the limit is 1048576."],
    ] as const) {
      const { dir } = home();
      const file = join(dir, ".skillhub", "config.yaml");
      if (kind === "big") write(file, `# ${"x".repeat(2 * 1_048_576 - 3)}\n`);
      else hostile(file, kind);
      const result = await cli(["list"], { HOME: dir }, dir);
      expect(result.code).toBe(2);
      expect(result.err).toBe(`skillhub: Invalid configuration: '${file}' ${says}\n`);
    }
  });

  test("a repository's config.yaml as /dev/zero, /dev/stdin, a FIFO or a link out is ignored with a warning", async () => {
    for (const kind of ["zero", "stdin", "fifo", "outside"] as const) {
      const { dir, copy } = home();
      const file = join(copy, "config.yaml");
      hostile(file, kind);
      const result = await cli(["doctor", "--json"], { HOME: dir, SKILLS_REPO: REPO }, dir);
      const doctor = JSON.parse(result.out);
      const warning = doctor.config_warnings.find((w: string) => w.includes(file));
      expect(warning).toEndWith("Its settings are ignored.");
      if (kind === "outside") expect(warning).toContain(`links outside ${copy}`);
      else expect(warning).toContain("not a regular file");
    }
  });

  test("a skills folder's config.yaml linked out of the folder is ignored with a warning", async () => {
    const { dir } = home();
    const skills = tempDir("skillhub-folder-");
    hostile(join(skills, "config.yaml"), "outside");
    const result = await cli(["doctor", "--json", "--skills-dir", skills], { HOME: dir }, dir);
    expect(JSON.parse(result.out).config_warnings.join("\n")).toContain(`links outside ${skills}`);
  });
});

describe("a repository's analytics.file", () => {
  test("keeps only its file name, in <home>/analytics: another tool's history file never receives events", async () => {
    for (const named of ["~/.other-tool/history.jsonl", "../../../.other-tool/history.jsonl", "/tmp/history.jsonl"]) {
      const { dir, copy } = home();
      write(join(copy, "config.yaml"), `analytics:\n  file: ${JSON.stringify(named)}\n`);
      const result = await cli(["doctor", "--json"], { HOME: dir, SKILLS_REPO: REPO }, dir);
      const doctor = JSON.parse(result.out);
      const confined = join(dir, ".skillhub", "analytics", "history.jsonl");
      expect(doctor.analytics.description).toContain(`file ${confined}`);
      expect(doctor.config_warnings.join("\n")).toContain(`is written as ${confined}`);
    }
  });
});

describe("the compiled binary with a hostile repository config.yaml", () => {
  /** The binary over stdio in `dir` with the team repository configured (no network needed). */
  async function start(dir: string) {
    const { client, transport, log } = await binaryClient(tempDir("skillhub-named-skills-"), dir, {
      SKILLS_REPO: REPO,
      SKILLHUB_WATCH: "0",
    });
    return { client, transport, stderr: log };
  }

  test("linked to /dev/zero: initialize and tools/list are answered, SIGTERM stops it", async () => {
    const { dir, copy } = home();
    hostile(join(copy, "config.yaml"), "zero");
    const { client, transport, stderr } = await start(dir);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("skill");
    const pid = transport.pid as number;
    process.kill(pid, "SIGTERM");
    await client.close();
    // Gone: signal 0 fails once the process has exited (polled, no fixed wait).
    let alive = true;
    for (let i = 0; i < 600 && alive; i++) {
      try {
        process.kill(pid, 0);
        await Bun.sleep(50);
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
    expect(stderr()).toContain(`'${join(copy, "config.yaml")}' is a character device, not a regular file.`);
  });

  test("linked to /dev/stdin: the client's messages are not eaten", async () => {
    const { dir, copy } = home();
    hostile(join(copy, "config.yaml"), "stdin");
    const { client } = await start(dir);
    expect(client.getServerVersion()?.name).toBe("skillhub");
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(await client.ping()).toBeDefined();
    await client.close();
  });
});
