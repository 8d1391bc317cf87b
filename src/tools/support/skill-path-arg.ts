import { z } from "zod";

/** The `skill_path` argument of the tree tools: trimmed and never empty; each tool adds its description. */
export function skillPathArg(): z.ZodString {
  return z.string().trim().min(1, "skill_path cannot be empty");
}
