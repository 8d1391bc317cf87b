import { z } from "zod";
import { configSecrets } from "../exec/env.ts";
import { knownSecretValues, scrubSecretText } from "../util/secret-env.ts";
import { defineTool } from "./definition.ts";
import { jsonTextHandler, structuredResult } from "./results.ts";
import { skillPathArg } from "./support/skill-path-arg.ts";
import { lookupSkillPath } from "./support/tree-lookup.ts";

const Input = () =>
  z
    .object({
      skill_path: skillPathArg().max(512).describe("Path or name of the skill you used (e.g. ui/react/auth, or pdf)"),
      useful: z.boolean().describe("Whether the skill helped with the task"),
      comment: z
        .string()
        .max(4000)
        .optional()
        .describe("What was missing, wrong or superfluous (optional, but it is what helps fix a skill)"),
    })
    .strict();

const Output = () =>
  z.object({
    recorded: z
      .boolean()
      .describe("Always true: the feedback was taken (an unknown or disabled skill is an error instead)"),
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
  handler: jsonTextHandler(async ({ skill_path, useful, comment }, { deps }) => {
    // Only skills this server serves: feedback on a mistyped or invented path would pollute the stats and the warnings.
    const found = await lookupSkillPath(skill_path, deps);
    if (found.error) return found.error;
    const path = found.skill.name;
    // Security: the log line gets the comment scrubbed of the server's secrets, as the event does (tracker.ts).
    const secrets = knownSecretValues(deps.exec.env, configSecrets(deps.config));
    const note = comment?.trim() ? `: ${JSON.stringify(scrubSecretText(comment.trim(), secrets).slice(0, 300))}` : "";
    deps.logger.info(`feedback on ${JSON.stringify(path)}: ${useful ? "useful" : "not useful"}${note}`);
    deps.track("skill_feedback", { skill_path: path, useful, comment: comment?.trim() || null });
    return structuredResult({ recorded: true, message: `Feedback recorded for ${path}` });
  }),
});
