/** Whether a parsed YAML or JSON value is a mapping (an object that is neither null nor a list). */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
