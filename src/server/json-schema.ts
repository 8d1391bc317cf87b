import { z } from "zod";

type JsonSchema = Record<string, unknown> & { type: "object" };

const inputCache = new WeakMap<z.ZodType, JsonSchema>();
const outputCache = new WeakMap<z.ZodType, JsonSchema>();

/** A zod object as the draft-07 JSON Schema MCP clients expect, without the `$schema` noise. Cached. */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output" = "input"): JsonSchema {
  const cache = io === "input" ? inputCache : outputCache;
  const hit = cache.get(schema);
  if (hit) return hit;
  const json = z.toJSONSchema(schema, { target: "draft-7", io }) as Record<string, unknown>;
  delete json.$schema;
  const result = { ...json, type: "object" } as JsonSchema;
  cache.set(schema, result);
  return result;
}

/** The error shape every tool may return with `isError`, written compactly. */
const ERROR_OUTPUT = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "string" }, message: { type: "string" } },
    },
  },
};

const outputSchemas = new WeakMap<z.ZodType, JsonSchema>();

/**
 * An output schema that admits the success shape or the error shape (clients
 * validate structuredContent even on error results). Descriptions and
 * `additionalProperties` are dropped: the shape is what a client checks, and
 * tools/list stays small (under 12 KB).
 */
export function outputJsonSchema(success: z.ZodType): JsonSchema {
  const hit = outputSchemas.get(success);
  if (hit) return hit;
  const result: JsonSchema = {
    type: "object",
    anyOf: [compact(toJsonSchema(success, "output"), 0) as JsonSchema, ERROR_OUTPUT],
  };
  outputSchemas.set(success, result);
  return result;
}

/** Object levels kept in an output schema; deeper objects are only "an object" (tools/list stays small). */
const MAX_OUTPUT_DEPTH = 2;

function compact(value: unknown, depth: number): unknown {
  if (Array.isArray(value)) return value.map((v) => compact(v, depth));
  if (typeof value !== "object" || value === null) return value;
  const node = value as Record<string, unknown>;
  if (node.properties && depth >= MAX_OUTPUT_DEPTH) return { type: "object" };
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(node)) {
    if (key === "description" || key === "additionalProperties") continue;
    // zod's int() bounds (±2^53-1) say nothing a client needs.
    if ((key === "minimum" || key === "maximum") && Math.abs(child as number) === Number.MAX_SAFE_INTEGER) continue;
    // Inside `properties`, keys are field names: a field called "description" must stay.
    out[key] =
      key === "properties"
        ? Object.fromEntries(Object.entries(child as object).map(([k, v]) => [k, compact(v, depth + 1)]))
        : compact(child, depth);
  }
  return out;
}
