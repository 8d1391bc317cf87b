import { z } from "zod";
import { isEnabled } from "../catalog/filters.ts";
import { checkedBody } from "../lock/checked-read.ts";
import { shownArg } from "../util/shown-arg.ts";
import { defineTool, READ_ONLY } from "./definition.ts";
import { structuredResult } from "./results.ts";
import { SkillSummary, summarise } from "./support/sk-summary.ts";

/**
 * Most characters of bodies one `includeBody` answer carries, as its JSON writes them (eight SKILL.md files at
 * their 1 MiB limit):
 * the skills past it come without `body`, and the text says how to get theirs. Every body of a large
 * collection at once is hundreds of megabytes, which the server would hold, and a client could not take.
 */
export const BODIES_MAX_CHARS = 8 * 1024 * 1024;

const Input = () =>
  z
    .object({
      query: z
        .string()
        .optional()
        .describe("Optional substring filter applied to install name, meta.name, or description"),
      includeBody: z
        .boolean()
        .optional()
        .describe("Include the SKILL.md body (minus YAML front-matter) in the structured payload"),
    })
    .strict();

/** `skills.list` (profile `sk`). */
export const skListTool = defineTool({
  name: "skills.list",
  title: "List Skills",
  annotations: READ_ONLY,
  inputSchema: Input,
  outputSchema: () => z.object({ skills: z.array(SkillSummary()) }),
  description: () =>
    "Enumerate every skill (SKILL.md) with its metadata; optionally filter by a substring and include bodies. Prefer this for exhaustive metadata.",
  handler: async ({ query, includeBody }, { deps }) => {
    // The disk as it is now: a stat of what the last scan saw (or the scan under way), then a
    // scan only if something was added, removed or edited.
    await deps.checkFresh();
    const needle = query?.trim().toLowerCase() ?? "";
    const skills = deps.store.catalog.skills
      .filter((s) => isEnabled(s, deps.filter))
      .map((s) => summarise(s, deps.projectRoot.dir))
      .filter(
        (s) =>
          needle === "" ||
          [s.installName, s.meta.name, s.meta.description].some((f) => f.toLowerCase().includes(needle)),
      );
    let bodiesLeftOut = 0;
    if (includeBody) {
      let room = BODIES_MAX_CHARS;
      for (const summary of skills) {
        const skill = deps.store.catalog.get(summary.meta.name);
        // Frozen: only bytes whose digest the lock records (lock/checked-read.ts).
        const body = (skill && checkedBody(deps.frozen, skill)) ?? "";
        // Counted as the answer carries it: JSON doubles a backslash, and writes a control character in six.
        const chars = JSON.stringify(body).length - 2;
        if (chars > room) bodiesLeftOut++;
        else {
          room -= chars;
          summary.body = body;
        }
      }
    }
    const leftOut =
      bodiesLeftOut > 0
        ? ` The bodies of ${bodiesLeftOut} of them are left out (one answer carries at most ${BODIES_MAX_CHARS} characters of bodies): call again with a query that matches fewer skills.`
        : "";
    const text = `${skills.length} skill${skills.length === 1 ? "" : "s"} matched${needle ? ` "${shownArg(query ?? "")}"` : ""}: ${skills.map((s) => s.meta.name).join(", ") || "none"}.${leftOut}`;
    // The text is a human-friendly summary; the structured payload carries the data.
    return structuredResult({ skills }, text);
  },
});
