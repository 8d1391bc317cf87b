import type { z } from "zod";
import { shownArg } from "../../util/shown-arg.ts";

/** Most unknown field names one line names; the rest are counted. */
const KEYS_SHOWN = 5;

/**
 * One problem of a tool call's arguments as its INVALID_ARGUMENT answer says it: `field.path: message`.
 * Security: zod quotes an unknown field's name whole, and a record's key becomes part of the path, so a
 * megabyte sent as a field's name would come back three times over; names are shown as shownArg shows
 * them, and at most KEYS_SHOWN of them.
 */
export function issueLine(issue: z.core.$ZodIssue): string {
  const where = issue.path.length > 0 ? issue.path.map((p) => shownArg(String(p))).join(".") : "arguments";
  if (issue.code !== "unrecognized_keys") return `${where}: ${issue.message}`;
  const keys = issue.keys.slice(0, KEYS_SHOWN).map((k) => `"${shownArg(k)}"`);
  const more = issue.keys.length > KEYS_SHOWN ? ` and ${issue.keys.length - KEYS_SHOWN} more` : "";
  return `${where}: Unrecognized key${issue.keys.length === 1 ? "" : "s"}: ${keys.join(", ")}${more}`;
}
