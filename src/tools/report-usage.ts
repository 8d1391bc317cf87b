import { z } from "zod";
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

/** Reports one client may send at once; then one more every REPORT_REFILL_MS (10 a minute). */
const REPORT_BURST = 10;
const REPORT_REFILL_MS = 6_000;

/**
 * report_usage's limit per client (a connection; with no session, an address). Security: every report is an
 * analytics event and a log line, and the event queue is shared: a client in a loop would fill it in seconds
 * and every other client's events would be dropped until the next flush.
 */
export function reportLimit(now?: () => number): RateLimit {
  return new RateLimit({ burst: REPORT_BURST, refillMs: REPORT_REFILL_MS, now });
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
        "Always true: the feedback was taken (an unknown or disabled skill, or a client over the limit, is an error instead)",
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
    const wait = deps.feedbackLimit.take(session.client);
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      return errorResult(
        "RATE_LIMITED",
        `Feedback on ${path} was not recorded: this client sent more reports than report_usage takes (${deps.feedbackLimit.burst} at once, then ${deps.feedbackLimit.perMinute} a minute). Report once per skill you used, with everything about it in one comment; to send this one, call again in ${seconds} s.`,
        { skill_path: path, retry_after_seconds: seconds },
      );
    }
    // Security: the log line and the event get the comment scrubbed of the server's secrets before it is cut,
    // so a secret the cut splits cannot be kept in part (the tracker scrubs every event too).
    const secrets = knownSecretValues(deps.exec.env, configSecrets(deps.config));
    const text = comment?.trim() ? scrubSecretText(comment.trim(), secrets) : undefined;
    const note = text ? `: ${JSON.stringify(cut(text, COMMENT_LOGGED_CHARS, () => "…"))}` : "";
    deps.logger.info(`feedback on ${JSON.stringify(path)}: ${useful ? "useful" : "not useful"}${note}`);
    const kept = text && cut(text, COMMENT_KEPT_CHARS, (left) => `… [${left} more characters cut]`);
    deps.track("skill_feedback", { skill_path: path, useful, comment: kept || null });
    const shortened =
      kept !== text
        ? `; its comment was cut to its first ${COMMENT_KEPT_CHARS.toLocaleString("en-US")} characters`
        : "";
    return structuredResult({ recorded: true, message: `Feedback recorded for ${path}${shortened}` });
  }),
});
