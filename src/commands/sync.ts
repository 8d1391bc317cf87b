import { Hub } from "../server/hub.ts";
import type { CommandRun } from "./context.ts";

/**
 * `skillhub sync [--json]`: what refresh_skills does, from the command line.
 * Progress goes to stderr, the summary to stdout; exit 1 when a repository
 * could not be synced.
 */
export const runSync: CommandRun = async (ctx) => {
  const config = { ...ctx.config, sources: { ...ctx.config.sources, watch: false, rescan_seconds: 0 } };
  const hub = new Hub({
    config,
    logger: ctx.logger,
    env: ctx.env,
    homeDir: ctx.homeDir,
    cwd: ctx.cwd,
    announceDiagnostics: false,
    git: { progress: (line) => ctx.err(`sync: ${line}…\n`), intervalMs: 0 },
  });
  try {
    const outcome = await hub.refreshSkills();
    if (ctx.args.options.json) {
      ctx.out(`${JSON.stringify(outcome, null, 2)}\n`);
      return outcome.success ? 0 : 1;
    }
    if (outcome.mode === "local") {
      ctx.out(
        `No git repository is configured (set SKILLS_REPO, or repos: under git: in ${ctx.config.home}/config.yaml).\nRescanned the local folders: ${skills(outcome.skills_reindexed)}.\n`,
      );
      return 0;
    }
    const width = Math.max(...outcome.repos.map((r) => r.name.length), 4);
    const sources = new Map((hub.git?.sources() ?? []).map((s) => [s.label, s.dir]));
    for (const r of outcome.repos) {
      const commit = (r.commit_hash ?? "-").slice(0, 7).padEnd(7);
      const state = r.error
        ? `FAILED: ${r.error.message}${r.commit_hash ? " (the local copy is still served)" : ""}`
        : r.changed
          ? `updated, ${r.files_changed} file${r.files_changed === 1 ? "" : "s"} changed`
          : "up to date";
      ctx.out(`${r.name.padEnd(width)}  ${commit}  ${state}${r.error ? "" : `  ${sources.get(r.name) ?? r.dir}`}\n`);
      for (const w of r.warnings) ctx.out(`${"".padEnd(width)}  warning: ${w}\n`);
    }
    ctx.out(
      `${skills(outcome.skills_reindexed)} indexed${outcome.last_sync ? `; last full sync ${outcome.last_sync}` : ""}.\n`,
    );
    return outcome.success ? 0 : 1;
  } finally {
    hub.close();
  }
};

function skills(count: number): string {
  return `${count} skill${count === 1 ? "" : "s"}`;
}
