/**
 * Devices and FIFOs behind every file that configuration, a plugin registry or a repository names:
 * the user's config.yaml and --config, a team repository's config.yaml, Claude Code's
 * installed_plugins.json and settings.json, the analytics file and buffer (server and `stats`). Each
 * kind of hostile file is tried behind each: a FIFO nobody writes, a link to /dev/zero (endless), a link
 * to /dev/stdin (the client's messages). The server must answer initialize and a tool call, and exit on
 * stdin's end; a command must end; nothing may hang, grow without bound, or eat the client's messages.
 */
import { mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { parseRepo } from "../../src/refresh/git/git-url.ts";
import { RawStdio } from "./raw-client.ts";
import { must, type Suite } from "./suite.ts";
import type { FuzzWorld } from "./world.ts";

export type HostileKind = "fifo" | "zero" | "stdin";
export const HOSTILE_KINDS: readonly HostileKind[] = ["fifo", "zero", "stdin"];

/** Replace whatever is at `path` by a FIFO, a link to /dev/zero or a link to /dev/stdin. */
export function plantHostile(path: string, kind: HostileKind): void {
  mkdirSync(join(path, ".."), { recursive: true });
  rmSync(path, { force: true });
  if (kind === "fifo") {
    if (Bun.spawnSync(["mkfifo", path]).exitCode !== 0) throw new Error(`mkfifo ${path} failed`);
  } else symlinkSync(kind === "zero" ? "/dev/zero" : "/dev/stdin", path);
}

/** Run a command of the binary to its end, or "hang" after `ms` (then killed). */
export async function runCommand(
  binary: string,
  args: string[],
  env: Record<string, string>,
  ms = 15_000,
): Promise<{ code: number | "hang"; stdout: string; stderr: string }> {
  const proc = Bun.spawn([binary, ...args], { env, cwd: env.HOME, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const stdout = new Response(proc.stdout).text();
  const stderr = new Response(proc.stderr).text();
  const code = await Promise.race([proc.exited, Bun.sleep(ms).then(() => "hang" as const)]);
  if (code === "hang") proc.kill("SIGKILL");
  (proc.stdin as import("bun").FileSink).end();
  return { code, stdout: await stdout, stderr: await stderr };
}

const REPO = "file:///nonexistent/fuzz-team.git";

/** A fresh HOME under the world's root with a team repository's copy on disk and one plugin installed. */
function home(world: FuzzWorld, name: string): { env: Record<string, string>; home: string; copy: string } {
  const home = join(world.root, "named", name);
  const copy = join(home, ".skillhub", "repos", parseRepo(REPO).slug);
  const skill = (dir: string, skillName: string) => {
    mkdirSync(join(dir, skillName), { recursive: true });
    Bun.write(
      join(dir, skillName, "SKILL.md"),
      `---\nname: ${skillName}\ndescription: Fuzz ${skillName}.\n---\nbody\n`,
    );
  };
  skill(join(copy, "skills"), "team-one");
  const plugin = join(home, ".claude", "plugins", "cache", "acme", "kit", "1.0.0");
  skill(join(plugin, "skills"), "plugin-one");
  Bun.write(
    join(home, ".claude", "plugins", "installed_plugins.json"),
    JSON.stringify({ version: 2, plugins: { "kit@acme": [{ scope: "user", installPath: plugin }] } }),
  );
  return { home, copy, env: { ...world.env, HOME: home, SKILLHUB_WATCH: "0", SKILLHUB_RESCAN_SECONDS: "0" } };
}

/** initialize, a `skill` call, then stdin's end: every step within its deadline. */
async function serverSurvives(
  binary: string,
  env: Record<string, string>,
  answers: string[],
  extra: string[] = [],
): Promise<boolean> {
  const client = new RawStdio([binary, ...extra], env, env.HOME as string);
  try {
    must(await client.initialize(), "initialize not answered");
    const call = await client.request("tools/call", { name: "skill", arguments: { name: "plugin-one" } }, 15_000);
    must(call !== "timeout", "tools/call not answered");
    must(await client.alive(10_000), "ping not answered");
    const code = await client.end(10_000);
    must(code !== "hang", "still running 10 s after stdin ended");
    must(client.nonJson.length === 0, `non-JSON on stdout: ${client.nonJson[0]}`);
    return true;
  } finally {
    client.proc.kill("SIGKILL");
    answers.push(client.stdoutText, client.stderrText);
  }
}

export async function namedFileCases(suite: Suite, binary: string, world: FuzzWorld, answers: string[]): Promise<void> {
  for (const kind of HOSTILE_KINDS) {
    await suite.check(
      `named files: ~/.skillhub/config.yaml as ${kind}: start-up stops naming it (exit 2)`,
      async () => {
        const h = home(world, `user-config-${kind}`);
        const file = join(h.home, ".skillhub", "config.yaml");
        plantHostile(file, kind);
        const out = await runCommand(binary, ["list"], h.env);
        answers.push(out.stdout, out.stderr);
        must(out.code === 2, `exit ${out.code}`);
        return out.stderr.includes(file);
      },
    );
    await suite.check(`named files: --config FILE as ${kind}: exit 2 naming it`, async () => {
      const h = home(world, `flag-config-${kind}`);
      const file = join(h.home, "extra.yaml");
      plantHostile(file, kind);
      const out = await runCommand(binary, ["doctor", "--config", file], h.env);
      answers.push(out.stdout, out.stderr);
      return out.code === 2 && out.stderr.includes(file);
    });
    await suite.check(`named files: a team repository's config.yaml as ${kind}: served, answered, exits`, async () => {
      const h = home(world, `repo-config-${kind}`);
      plantHostile(join(h.copy, "config.yaml"), kind);
      return serverSurvives(binary, { ...h.env, SKILLS_REPO: REPO }, answers);
    });
    for (const file of ["installed_plugins.json", "settings.json"] as const)
      await suite.check(`named files: ~/.claude/…/${file} as ${kind}: answered, exits`, async () => {
        const h = home(world, `${file}-${kind}`);
        const path =
          file === "settings.json"
            ? join(h.home, ".claude", "settings.json")
            : join(h.home, ".claude", "plugins", "installed_plugins.json");
        plantHostile(path, kind);
        return serverSurvives(binary, h.env, answers);
      });
    await suite.check(`named files: the analytics file and buffer as ${kind}: answered, flushed, exits`, async () => {
      const h = home(world, `analytics-${kind}`);
      const file = join(h.home, "events.jsonl");
      plantHostile(file, kind);
      plantHostile(join(h.home, ".skillhub", "analytics-buffer.jsonl"), kind);
      return serverSurvives(
        binary,
        {
          ...h.env,
          SKILLHUB_ANALYTICS_FILE: file,
          // A closed loopback port: every POST fails, so the buffer is written and read.
          ANALYTICS_ENDPOINT: "http://127.0.0.1:9/events",
          SKILLHUB_ANALYTICS_FLUSH_SECONDS: "0.2",
        },
        answers,
      );
    });
    await suite.check(
      `named files: \`stats\` and \`doctor\` with the analytics files as ${kind}: they end`,
      async () => {
        const h = home(world, `stats-${kind}`);
        const file = join(h.home, ".skillhub", "analytics.jsonl");
        plantHostile(file, kind);
        plantHostile(join(h.home, ".skillhub", "analytics-buffer.jsonl"), kind);
        const env = { ...h.env, SKILLHUB_ANALYTICS_FILE: file };
        for (const args of [["stats"], ["stats", file], ["doctor", "--json"]]) {
          const out = await runCommand(binary, args, env);
          answers.push(out.stdout, out.stderr);
          must(out.code !== "hang", `${args.join(" ")} hung`);
        }
        return true;
      },
    );
  }
}
