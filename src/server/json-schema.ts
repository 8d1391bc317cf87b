import { z } from "zod";

type JsonSchema = Record<string, unknown> & { type: "object" };

/** A zod object as the draft-07 JSON Schema MCP clients expect, without the `$schema` noise. */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output" = "input"): JsonSchema {
  const json = z.toJSONSchema(schema, { target: "draft-7", io }) as Record<string, unknown>;
  delete json.$schema;
  return { ...json, type: "object" };
}

/** The error shape every tool may return with `isError` (DESIGN §8). */
export const ErrorOutput = z.object({
  error: z
    .object({
      code: z.string().describe("Stable error code, e.g. SKILL_NOT_FOUND"),
      message: z.string().describe("What went wrong and what to do instead"),
    })
    .passthrough(),
});

/**
 * An output schema that admits the success shape or the error shape: clients
 * validate structuredContent even on error results.
 */
export function outputJsonSchema(success: z.ZodType): JsonSchema {
  const ok = toJsonSchema(success, "output");
  const err = toJsonSchema(ErrorOutput, "output");
  return { type: "object", anyOf: [ok, err] };
}
