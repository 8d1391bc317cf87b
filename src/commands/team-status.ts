import { readJsonlFile } from "../analytics/jsonl.ts";
import { bufferFile } from "../analytics/setup.ts";
import type { Hub } from "../server/hub.ts";
import { capitalised } from "../util/plural.ts";
import { fetchAdvice } from "./fetch-advice.ts";

/** Count of events waiting in the buffer file (read by the bounded reader: a FIFO there counts none). */
function bufferedEvents(hub: Hub): number {
  return readJsonlFile(bufferFile(hub.config)).events.length;
}

/**
 * The configured repositories whose copy is not served (none, another repository's, not verified, or its
 * folder leads out of it).
 */
export function unservedRepos(hub: Hub): string[] {
  return (hub.git?.status() ?? []).filter((r) => !r.served).map((r) => r.name);
}

/**
 * Each repository's status, with the commit its copy is checked out at now (`commit`, null without a
 * copy): the last sync's record says what that sync left, not what a checkout made in the copy since.
 */
async function repoStatus(hub: Hub) {
  const commits = (await hub.git?.checkouts()) ?? new Map<string, string | null>();
  return (hub.git?.status() ?? []).map((r) => ({ ...r, commit: commits.get(r.name) ?? null }));
}

/** Git repositories and analytics, for `doctor --json`. */
export async function teamJson(hub: Hub) {
  return {
    repos: (await repoStatus(hub)).map((r) => ({ ...r, synced: r.state !== undefined })),
    git_executable: hub.git ? (Bun.which("git") ?? null) : undefined,
    allowed_signers: hub.git ? (hub.config.trust.allowed_signers ?? null) : undefined,
    analytics: { description: hub.analytics.describe, buffered_events: bufferedEvents(hub) },
  };
}

/** Git repositories and analytics, for `doctor`'s text. */
export async function teamLines(hub: Hub): Promise<string[]> {
  const lines: string[] = [];
  const c = hub.config;
  if (hub.git) {
    const every = c.refresh.enabled ? `synced every ${c.refresh.interval_minutes} min` : "background sync off";
    lines.push(
      "",
      `Git repositories (default branch ${c.git.branch}; ${every}; token: ${c.git.token ? "GITHUB_TOKEN set" : "none, git credential helpers and SSH keys apply"}):`,
    );
    // A teammate who forgot the setting serves unsigned commits without a word: say which mode this is.
    const signers = c.trust.allowed_signers;
    lines.push(
      signers
        ? `  commit signatures: checked, only commits signed by a key in ${signers} are served (trust.allowed_signers)`
        : "  commit signatures: not checked (set SKILLHUB_ALLOWED_SIGNERS or trust.allowed_signers to serve only signed commits)",
    );
    if (!Bun.which("git"))
      lines.push("  problem: the git executable is not on PATH; install git to sync these repositories.");
    for (const r of await repoStatus(hub)) {
      const follows = r.ref ? `, pinned to ${r.ref}` : r.branch !== c.git.branch ? `, branch ${r.branch}` : "";
      const added = r.project ? " (added by the project's skillhub.yaml)" : "";
      lines.push(`  ${r.name}  ${r.url}${r.path ? `, folder ${r.path}` : ""}${follows}${added}`);
      lines.push(
        r.state
          ? `    copy ${r.dir} at ${(r.commit ?? r.state.commit).slice(0, 7)}, last synced ${r.state.last_sync}${r.commit && r.commit !== r.state.commit ? ` (at ${r.state.commit.slice(0, 7)}; checked out in the copy since)` : ""}`
          : `    not synced yet: no local copy, so no skills from this repository: ${fetchAdvice(hub, r.name)} (a server with network access syncs it at start).`,
      );
      if (r.state?.last_error)
        lines.push(`    the last sync failed (${r.state.last_error.at}): ${r.state.last_error.message}`);
      const served = hub.catalog.sources.find((s) => s.label === r.name)?.served ?? 0;
      if (r.served) lines.push(`    served: ${served} skill${served === 1 ? "" : "s"}`);
      else if (r.not_served) {
        const why = r.not_served.replace(/\.$/, "");
        // Another repository's copy is refused whatever the settings; a refused signature's reason names the setting.
        const setting = r.foreign_origin || why.includes("trust.allowed_signers") ? "" : " (trust.allowed_signers)";
        lines.push(`    not served: ${why}${setting}. ${capitalised(r.fix ?? "")}.`);
      } else if (r.state && r.path)
        lines.push(`    not served: its folder ${r.path} leads outside the repository through a link.`);
    }
  }
  const buffered = bufferedEvents(hub);
  lines.push(
    "",
    `Analytics: ${hub.analytics.describe}${buffered > 0 ? `; ${buffered} events waiting in ${bufferFile(c)}` : ""}`,
  );
  return lines;
}
