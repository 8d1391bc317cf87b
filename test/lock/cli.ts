import { join } from "node:path";
import { run } from "../../src/cli.ts";
import { tempDir } from "../helpers/fs.ts";
import { GIT_ENV } from "../helpers/git.ts";
import { connect } from "../helpers/hub.ts";

/** One simulated machine: its own home folder and project folder. */
export interface Machine {
  home: string;
  project: string;
  /** <project>/.agents/skills */
  skills: string;
  lock: string;
}

export function machine(): Machine {
  const home = tempDir("skillhub-lock-home-");
  const project = tempDir("skillhub-lock-project-");
  return { home, project, skills: join(project, ".agents", "skills"), lock: join(project, "skillhub.lock") };
}

/** Run the CLI on `m` (project root = its project), git without the developer's config. */
export async function cli(m: Machine, argv: string[], env: Record<string, string> = {}) {
  let out = "";
  let err = "";
  const code = await run(
    [...argv, "--project", m.project],
    { ...GIT_ENV, HOME: m.home, SKILLHUB_WATCH: "0", ...env },
    { out: (t) => void (out += t), err: (t) => void (err += t), cwd: m.project },
  );
  return { code, out, err };
}

/** An in-memory client on a server for `m`'s project (frozen unless `env` says otherwise); close it when done. */
export function serverOn(m: Machine, env: Record<string, string> = { SKILLHUB_FROZEN: "1" }) {
  return connect({ home: m.home, cwd: m.project, env, flags: { project: m.project }, hub: { env: GIT_ENV } });
}

/** An in-memory client on a server for `m` whose repositories (in `env`) real git syncs, without timers. */
export function repoServerOn(m: Machine, env: Record<string, string>) {
  return connect({
    home: m.home,
    cwd: m.project,
    env: { ...env, HOME: m.home },
    hub: { git: { runner: { env: GIT_ENV }, intervalMs: 0, home: join(m.home, ".skillhub") } },
  });
}
