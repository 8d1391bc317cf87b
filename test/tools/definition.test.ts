import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { defineTool, READ_ONLY } from "../../src/tools/definition.ts";
import { TOOLS } from "../../src/tools/index.ts";

describe("defineTool", () => {
  // Start-up: a tool's schemas are built when tools/list or a call first reads them.
  test("builds the schemas on first read, once", () => {
    let built = 0;
    const tool = defineTool({
      name: "t",
      title: "T",
      annotations: READ_ONLY,
      description: () => "d",
      inputSchema: () => {
        built++;
        return z.object({ q: z.string() });
      },
      outputSchema: () => z.object({ n: z.number() }),
      handler: async () => ({ content: [] }),
    });
    expect(built).toBe(0);
    expect(tool.name).toBe("t");
    const first = tool.inputSchema;
    expect(tool.inputSchema).toBe(first);
    expect(built).toBe(1);
    expect(first.safeParse({ q: "x" }).success).toBe(true);
    expect(tool.outputSchema?.safeParse({ n: 1 }).success).toBe(true);
  });

  test("a tool without an output schema has none", () => {
    const tool = defineTool({
      name: "t",
      title: "T",
      annotations: READ_ONLY,
      description: () => "d",
      inputSchema: () => z.object({}),
      handler: async () => ({ content: [] }),
    });
    expect(tool.outputSchema).toBeUndefined();
    // A copy (as tests and profiles make) carries the schemas.
    expect({ ...tool }.inputSchema).toBe(tool.inputSchema);
  });

  test("every tool's input schema is an object schema", () => {
    for (const tool of TOOLS.values()) expect(Object.keys(tool.inputSchema.shape)).toBeInstanceOf(Array);
  });
});
