import type { CallToolResult } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { RefreshOutcome } from "../refresh/force-refresh.ts";
import { FORCED_FETCH_INTERVAL_MS } from "../refresh/git/forced-fetches.ts";
import type { RepoReport } from "../refresh/git/git-sync-types.ts";
import { plural } from "../util/plural.ts";
import { defineTool } from "./definition.ts";
import { jsonTextHandler } from "./results.ts";

const Input = () => z.object({}).strict();

const RepoResult = () =>
  z.object({
    name: z.string().describe("Source label of the repository"),
    url: z.string().describe("Repository URL (credentials removed)"),
    success: z.boolean(),
    changed: z.boolean().describe("Whether its files changed"),
    commit_hash: z.string().optional().describe("Commit after the sync; absent while there is no local copy"),
    files_changed: z.number().int(),
    cloned: z.boolean().optional().describe("True when this sync made the first local copy"),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    warnings: z.array(z.string()).optional(),
  });

const Output = () =>
  z.object({
    success: z.boolean().describe("The sync (git mode) or the rescan (local mode) succeeded"),
    mode: z.enum(["git", "local"]).optional().describe("git: repositories were pulled; local: folders only"),
    commit_hash: z.string().optional().describe("Commit of the (first) repository after the sync"),
    files_changed: z.number().int().optional().describe("Files changed by the sync, all repositories together"),
    skills_reindexed: z.number().int().optional().describe("Skills in the catalog after the rescan"),
    last_sync: z.string().optional().describe("ISO time of the last successful sync; absent before the first one"),
    message: z.string().optional(),
    repos: z.array(RepoResult()).optional().describe("Per repository, when several are configured or one failed"),
    error: z.object({ code: z.string(), message: z.string() }).passthrough().optional(),
  });

/** refresh_skills' message for local mode. */
export const LOCAL_MESSAGE = "Reindexed from local directory (no git sync configured).";

/** A refresh while one runs returns `{ success: false }` at once; not an error, just "later". */
export const BUSY_MESSAGE = "A refresh is already running; try again in a moment.";

/** Force a git pull (when repositories are configured) and a rescan. */
export const refreshSkillsTool = defineTool({
  name: "refresh_skills",
  title: "Refresh Skills",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  inputSchema: Input,
  outputSchema: Output,
  description: (_catalog, ctx) =>
    ctx.deps.config.git.repos.length > 0
      ? "Pull the team's skill repositories now and re-read every skill folder, then report the commit, the files changed and the number of skills. Use it after a skill was changed in the repository and you need it before the next automatic sync (every few minutes)."
      : "Re-read every skill folder now and report the number of skills. Use it when a skill was just added or edited and does not show up yet (folders are also rescanned automatically).",
  handler: jsonTextHandler(async (_args, { deps, session }) => {
    const outcome = await deps.refreshSkills();
    const result = toResult(outcome);
    deps.track(
      "refresh",
      {
        mode: outcome.mode,
        success: outcome.success,
        commit_hash: outcome.mode === "git" ? outcome.commit_hash : null,
        files_changed: outcome.mode === "git" ? outcome.files_changed : 0,
        skills_reindexed: outcome.skills_reindexed,
      },
      session.address,
    );
    return result;
  }),
});

function toResult(outcome: RefreshOutcome): CallToolResult {
  if (outcome.mode === "local") {
    const data = { success: true, mode: "local", skills_reindexed: outcome.skills_reindexed, message: LOCAL_MESSAGE };
    return { content: [{ type: "text", text: JSON.stringify(data, null, 2) }], structuredContent: data };
  }
  const base = {
    success: outcome.success,
    mode: "git",
    // Output schemas avoid `null` (a ["string", "null"] type makes strict validators warn): unknown is absent.
    ...(outcome.commit_hash ? { commit_hash: outcome.commit_hash } : {}),
    files_changed: outcome.files_changed,
    skills_reindexed: outcome.skills_reindexed,
    ...(outcome.last_sync ? { last_sync: outcome.last_sync } : {}),
  };
  if (outcome.busy) {
    const data = { success: false, message: BUSY_MESSAGE };
    return { content: [{ type: "text", text: JSON.stringify(data, null, 2) }], structuredContent: data };
  }
  const repos = outcome.repos.map((r) => ({
    name: r.name,
    url: r.url,
    success: r.success,
    changed: r.changed,
    ...(r.commit_hash ? { commit_hash: r.commit_hash } : {}),
    files_changed: r.files_changed,
    ...(r.error ? { error: r.error } : {}),
    ...(r.warnings.length > 0 ? { warnings: r.warnings } : {}),
  }));
  const failed = outcome.repos.filter((r) => r.error);
  const showRepos = outcome.repos.length > 1 || failed.length > 0 || repos.some((r) => r.warnings);
  const rested = outcome.repos.filter((r) => r.rested);
  const rest = rested.length > 0 ? restSentence(rested) : undefined;
  if (failed.length === 0) {
    const message = rest && `${rest} ${indexed(outcome.skills_reindexed)}`;
    const data = {
      ...base,
      ...(rest ? { message } : {}),
      ...(showRepos ? { repos } : {}),
    };
    return { content: [{ type: "text", text: JSON.stringify(data, null, 2) }], structuredContent: data };
  }
  // What is served now, as it is: a copy trust.allowed_signers refuses is not, and each error says its fix.
  const served = failed.every((r) => r.served)
    ? "The last synced copies are still served."
    : failed.every((r) => r.commit_hash)
      ? "A copy that is not served adds no skills until the failure above is fixed."
      : "A repository with no local copy yet adds no skills until a sync succeeds.";
  const message = `${failed.map((r) => `${r.name}: ${r.error?.message}`).join(" ")} ${served}${rest ? ` ${rest}` : ""} ${indexed(outcome.skills_reindexed)}`;
  const first = failed[0]?.error ?? { code: "GIT_FAILED", message };
  const data = {
    ...base,
    message,
    repos,
    error: { code: first.code, message },
  };
  return { isError: true, content: [{ type: "text", text: `${first.code}: ${message}` }], structuredContent: data };
}

/** "N skills are indexed.", after a rescan. */
function indexed(count: number): string {
  return `${plural(count, "skill")} ${count === 1 ? "is" : "are"} indexed.`;
}

/**
 * What a refresh says of the repositories it did not fetch, fetched by one a moment ago: when, and when to call
 * again (the longest any of them has to wait).
 */
function restSentence(rested: RepoReport[]): string {
  const wait = Math.max(...rested.map((r) => r.rested?.next_fetch_in_seconds ?? 0));
  const ago = (r: RepoReport) => `${r.rested?.fetched_seconds_ago} s ago`;
  const which =
    rested.length === 1
      ? `${rested[0]?.name} was not fetched again: it was fetched ${ago(rested[0] as RepoReport)}, and`
      : `${rested.map((r) => `${r.name} (fetched ${ago(r)})`).join(", ")} were not fetched again:`;
  return `${which} refresh_skills fetches a repository at most once every ${FORCED_FETCH_INTERVAL_MS / 1000} s. The skill folders were rescanned; call refresh_skills again in ${wait} s to get newer commits.`;
}
