import { describe, expect, test } from "bun:test";
import { configDefaults } from "../../src/config/defaults.ts";
import { resolveConfig } from "../../src/config/resolve.ts";
import { configSchema, JITLESS } from "../../src/config/schema.ts";

describe("configDefaults", () => {
  // resolveConfig validates only what differs from the defaults: they must be valid as they are.
  test("the schema accepts the defaults and returns them unchanged", () => {
    const defaults = configDefaults("/home/u/.skillhub");
    expect(configSchema().parse(defaults, JITLESS)).toEqual(defaults);
  });

  test("every setting of the schema that is not optional has a default", () => {
    const defaults = configDefaults("/h") as Record<string, unknown>;
    for (const [key, schema] of Object.entries(configSchema().shape)) {
      if (!schema.safeParse(undefined).success) expect(defaults).toHaveProperty(key);
    }
  });

  test("resolving nothing gives the defaults, with paths made absolute", () => {
    const { config } = resolveConfig({ env: {}, homeDir: "/home/u", cwd: "/work" });
    expect(config).toEqual({ ...configDefaults("/home/u/.skillhub"), cache_path: undefined });
  });

  test("a changed setting is validated; an unchanged section is not re-checked but kept", () => {
    const { config } = resolveConfig({ env: { SEARCH_LIMIT: "5" }, homeDir: "/home/u", cwd: "/work" });
    expect(config.search.limit).toBe(5);
    expect(config.scripts).toEqual(configDefaults("/h").scripts);
    expect(() => resolveConfig({ env: { SEARCH_LIMIT: "500" }, homeDir: "/home/u", cwd: "/work" })).toThrow(
      /SEARCH_LIMIT/,
    );
  });
});
