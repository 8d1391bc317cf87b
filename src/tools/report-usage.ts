import type { CallToolResult } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { TrackOutcome } from "../analytics/tracker.ts";
import { configSecrets } from "../exec/env.ts";
import { RateLimit } from "../util/rate-limit.ts";
import { knownSecretValues, scrubSecretText } from "../util/secret-env.ts";
import { defineTool } from "./definition.ts";
import { errorResult, jsonTextHandler, structuredResult } from "./results.ts";
import { skillPathArg } from "./support/skill-path-arg.ts";
import { lookupSkillPath } from "./support/tree-lookup.ts";

/** Characters of a comment the analytics event keeps (code points); the rest is cut, and the cut said. */
export const COMMENT_KEPT_CHARS = 2_000;

/** Characters of a comment the server's log line quotes. */
const COMMENT_LOGGED_CHARS = 200;

/** report_usage's limits per client: `session` per connection, `address` per address for clients without one. */
export interface ReportLimits {
  readonly session: RateLimit;
  readonly address: RateLimit;
}

/**
 * report_usage's limits. Security: every report is a log line and an analytics event, and a client in a loop
 * would fill the log. A session sends 10 at once, then 10 a minute (one every 6 s): a model reports once per
 * skill it used. A client without a session (stateless, 2026-07-28) is counted by its address, which every
 * client behind a reverse proxy shares: 60 at once, then 60 a minute, so one of them cannot make everyone's
 * feedback fail. Neither protects the shared event queue against a client that opens new sessions: its
 * address's share of the queue does (analytics/tracker.ts), and report_usage says so past it, as it says when
 * the whole queue is full.
 */
export function reportLimits(now?: () => number): ReportLimits {
  return {
    session: new RateLimit({ burst: 10, refillMs: 6_000, now }),
    address: new RateLimit({ burst: 60, refillMs: 1_000, now }),
  };
}

/** `text` in at most `max` characters (code points): a longer one is cut and ends with `mark(characters cut)`. */
function cut(text: string, max: number, mark: (left: number) => string): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max).join("")}${mark(chars.length - max)}`;
}

const Input = () =>
  z
    .object({
      skill_path: skillPathArg().max(512).describe("Path or name of the skill you used (e.g. ui/react/auth, or pdf)"),
      useful: z.boolean().describe("Whether the skill helped with the task"),
      comment: z
        .string()
        .max(4000)
        .optional()
        .describe(
          "What was missing, wrong or superfluous (optional, but it is what helps fix a skill); the first 2,000 characters are kept",
        ),
    })
    .strict();

const Output = () =>
  z.object({
    recorded: z
      .boolean()
      .describe(
        "Always true: the feedback was kept (an unknown or disabled skill, a client over the limit, or a report the server could not queue is an error instead)",
      ),
    message: z.string(),
  });

/** Feedback on a skill of the catalog, tracked as `skill_feedback`. */
export const reportUsageTool = defineTool({
  name: "report_usage",
  title: "Report Skill Usefulness",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  inputSchema: Input,
  outputSchema: Output,
  description: () =>
    "Report whether a skill you used was useful. Call it once after using a skill; when it was not useful, say in `comment` what was missing or wrong: the team uses this to improve its skills.",
  handler: jsonTextHandler(async ({ skill_path, useful, comment }, { deps, session }) => {
    // Only skills this server serves: feedback on a mistyped or invented path would pollute the stats and the warnings.
    const found = await lookupSkillPath(skill_path, deps);
    if (found.error) return found.error;
    const path = found.skill.name;
    const limit = session.client === undefined ? deps.feedbackLimits.address : deps.feedbackLimits.session;
    const wait = limit.take(session.client ?? session.address ?? "");
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      return errorResult(
        "RATE_LIMITED",
        `Feedback on ${path} was not recorded: this client sent more reports than report_usage takes (${limit.burst} at once, then ${limit.perMinute} a minute). Report once per skill you used, with everything about it in one comment; to send this one, call again in ${seconds} s.`,
        { skill_path: path, retry_after_seconds: seconds },
      );
    }
    // Security: the log line and the event get the comment scrubbed of the server's secrets before it is cut,
    // so a secret the cut splits cannot be kept in part (the tracker scrubs every event too).
    const secrets = knownSecretValues(deps.exec.env, configSecrets(deps.config));
    const text = comment?.trim() ? scrubSecretText(comment.trim(), secrets) : undefined;
    const kept = text && cut(text, COMMENT_KEPT_CHARS, (left) => `… [${left} more characters cut]`);
    // The answer says what became of the event: a report the queue dropped is not "recorded".
    const outcome = deps.track("skill_feedback", { skill_path: path, useful, comment: kept || null }, session.address);
    if (outcome !== "queued" && outcome !== "off") return notQueued(path, outcome, deps.config.analytics);
    const note = text ? `: ${JSON.stringify(cut(text, COMMENT_LOGGED_CHARS, () => "…"))}` : "";
    deps.logger.info(`feedback on ${JSON.stringify(path)}: ${useful ? "useful" : "not useful"}${note}`);
    const shortened =
      kept !== text
        ? `; its comment was cut to its first ${COMMENT_KEPT_CHARS.toLocaleString("en-US")} characters`
        : "";
    return structuredResult({ recorded: true, message: `Feedback recorded for ${path}${shortened}` });
  }),
});

/** The error for a report the tracker dropped: nothing of it was kept (no log line, no feedback count). */
function notQueued(
  path: string,
  outcome: Exclude<TrackOutcome, "queued" | "off">,
  analytics: { flush_seconds: number; max_queue: number },
): CallToolResult {
  const seconds = analytics.flush_seconds;
  switch (outcome) {
    // New sessions escape the limits per session and per address; the address's share of the event queue holds them.
    case "over_share":
      return errorResult(
        "RATE_LIMITED",
        `Feedback on ${path} was not recorded: clients at this address sent more analytics events than one address may before they are next sent (every ${seconds} s). Report once per skill you used; to send this one, call again in ${seconds} s.`,
        { skill_path: path, retry_after_seconds: seconds },
      );
    case "queue_full":
      return errorResult(
        "SERVER_BUSY",
        `Feedback on ${path} was not recorded: the server's analytics queue is full (${analytics.max_queue.toLocaleString("en-US")} events of all its clients wait to be sent), and it empties when they are next sent (every ${seconds} s). To send this report, call again in ${seconds} s.`,
        { skill_path: path, retry_after_seconds: seconds },
      );
    case "failed":
      return errorResult(
        "INTERNAL_ERROR",
        `Feedback on ${path} was not recorded: SkillHub failed to queue it (its log says why, at debug level). Retry once; if it fails again, tell the user.`,
        { skill_path: path },
      );
  }
}
