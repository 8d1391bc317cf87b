import { afterAll, describe, expect, test } from "bun:test";
import { Client, InMemoryTransport, type JSONRPCMessage, ProtocolError } from "@modelcontextprotocol/client";
import { z } from "zod";
import { createServer } from "../../src/server/create-server.ts";
import { Hub } from "../../src/server/hub.ts";
import { defineTool, READ_ONLY } from "../../src/tools/definition.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { eventually, HANG_MS, testHub } from "../helpers/hub.ts";
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

/** A hub serving one skill, git-helper, beside the unsendable tool. */
function hubWithUnsendable() {
  const skills = tempDir("skillhub-unsent-");
  writeSkill(skills, "git-helper", { description: "Git workflow helper" });
  const { hub, logger } = testHub({ flags: { "skills-dir": [skills] } });
  hub.tools = () => [...Hub.prototype.tools.call(hub), unsendable];
  return { hub, logger, errors: () => logger.lines.filter((line) => line.includes("ERROR")) };
}

describe("an answer the transport cannot send", () => {
  test("the SDK's report of it is logged as an error", async () => {
    const { hub, errors } = hubWithUnsendable();
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    // As a transport on a wire does: each message is written as JSON before it leaves.
    const pass = serverEnd.send.bind(serverEnd);
    serverEnd.send = async (message: JSONRPCMessage, options) =>
      pass(JSON.parse(JSON.stringify(message)) as JSONRPCMessage, options);
    const server = createServer(hub, { version: "test" });
    await server.connect(serverEnd);
    void hub.start();
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(clientEnd);
    try {
      const abort = new AbortController();
      const call = client
        .callTool({ name: "unsendable", arguments: {} }, { signal: abort.signal, timeout: HANG_MS })
        .catch(() => undefined);
      await eventually(() => errors().length > 0);
      expect(errors()).toEqual([expect.stringContaining("mcp: Failed to send response: TypeError: ")]);
      abort.abort();
      await call;
    } finally {
      await client.close();
      await hub.shutdown();
    }
  });

  test("over stdio its request gets an internal error naming the method, the log says which request, and the next call is served", async () => {
    const { hub, errors } = hubWithUnsendable();
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
      expect(errors()).toHaveLength(1);
      expect(errors()[0]).toMatch(
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
