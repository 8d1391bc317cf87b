import { readJsonlFile } from "../analytics/jsonl.ts";
import { bufferFile } from "../analytics/setup.ts";
import type { Hub } from "../server/hub.ts";

/** Count of events waiting in the buffer file (read by the bounded reader: a FIFO there counts none). */
function bufferedEvents(hub: Hub): number {
  return readJsonlFile(bufferFile(hub.config)).events.length;
}

/** Git repositories and analytics, for `doctor --json`. */
export function teamJson(hub: Hub) {
  return {
    repos: (hub.git?.status() ?? []).map((r) => ({ ...r, synced: r.state !== undefined })),
    git_executable: hub.git ? (Bun.which("git") ?? null) : undefined,
    analytics: { description: hub.analytics.describe, buffered_events: bufferedEvents(hub) },
  };
}

/** Git repositories and analytics, for `doctor`'s text. */
export function teamLines(hub: Hub): string[] {
  const lines: string[] = [];
  const c = hub.config;
  if (hub.git) {
    const every = c.refresh.enabled ? `synced every ${c.refresh.interval_minutes} min` : "background sync off";
    lines.push(
      "",
      `Git repositories (branch ${c.git.branch}; ${every}; token: ${c.git.token ? "GITHUB_TOKEN set" : "none, git credential helpers and SSH keys apply"}):`,
    );
    if (!Bun.which("git"))
      lines.push("  problem: the git executable is not on PATH; install git to sync these repositories.");
    for (const r of hub.git.status()) {
      const follows = r.ref ? `, pinned to ${r.ref}` : r.branch !== c.git.branch ? `, branch ${r.branch}` : "";
      const added = r.project ? " (added by the project's skillhub.yaml)" : "";
      lines.push(`  ${r.name}  ${r.url}${r.path ? `, folder ${r.path}` : ""}${follows}${added}`);
      lines.push(
        r.state
          ? `    copy ${r.dir} at ${r.state.commit.slice(0, 7)}, last synced ${r.state.last_sync}`
          : `    not synced yet: no local copy, so no skills from this repository. Run \`skillhub sync\` (or start the server with network access) and see its message.`,
      );
      if (r.not_served) lines.push(`    not served: ${r.not_served} (trust.allowed_signers)`);
    }
  }
  const buffered = bufferedEvents(hub);
  lines.push(
    "",
    `Analytics: ${hub.analytics.describe}${buffered > 0 ? `; ${buffered} events waiting in ${bufferFile(c)}` : ""}`,
  );
  return lines;
}
