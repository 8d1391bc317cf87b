import { afterAll, describe, expect, test } from "bun:test";
import { ProtocolError } from "@modelcontextprotocol/client";
import { z } from "zod";
import { Hub } from "../../src/server/hub.ts";
import { defineTool, READ_ONLY } from "../../src/tools/definition.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { HANG_MS, testHub } from "../helpers/hub.ts";
import { stdioClient } from "../helpers/stdio-client.ts";

afterAll(cleanupTemp);

/** A tool whose answer JSON has no form for (a BigInt), as an answer too large to hold as a string has none. */
const unsendable = defineTool({
  name: "unsendable",
  title: "Unsendable",
  annotations: READ_ONLY,
  inputSchema: () => z.object({}),
  description: () => "Answers with a value JSON cannot write.",
  handler: async () => ({
    content: [{ type: "text", text: "a count" }],
    structuredContent: { count: 10n } as unknown as Record<string, unknown>,
  }),
});

describe("an answer that cannot be written over stdio", () => {
  test("its request gets an internal error naming the method, the log says which request, and the next call is served", async () => {
    const skills = tempDir("skillhub-unsent-");
    writeSkill(skills, "git-helper", { description: "Git workflow helper" });
    const { hub, logger } = testHub({ flags: { "skills-dir": [skills] } });
    hub.tools = () => [...Hub.prototype.tools.call(hub), unsendable];
    const s = await stdioClient(hub);
    try {
      const failed = await s.client.callTool({ name: "unsendable", arguments: {} }, { timeout: HANG_MS }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failed).toBeInstanceOf(ProtocolError);
      expect((failed as ProtocolError).code).toBe(-32603);
      expect((failed as ProtocolError).message).toContain(
        "The answer to tools/call could not be sent: it could not be written as JSON (TypeError).",
      );
      const logged = logger.lines.filter((line) => line.includes("ERROR"));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatch(
        /stdout: the answer to tools\/call \(id \d+\) could not be written as JSON \(TypeError: /,
      );
      const served = await s.client.callTool({ name: "load_skill", arguments: { skill_name: "git-helper" } });
      expect(served.isError).toBeFalsy();
    } finally {
      await s.close();
      await hub.shutdown();
    }
  });
});
