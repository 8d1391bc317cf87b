import { afterAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { type HttpBinary, startHttpBinary } from "../helpers/http-binary.ts";
import { textOf } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const bin = binary();

/** A client that never initializes again on 404 (as Gemini CLI and the SDK's own client do) keeps its session. */
describe("a hub restarted under a connected client", () => {
  test("the SDK client goes on with the same session, and skills keep working", async () => {
    const home = tempDir("skillhub-restart-home-");
    const skills = tempDir("skillhub-restart-skills-");
    writeSkill(skills, "git-helper", { description: "Git workflow helper" });
    const token = "restart-test-token-0123456789";
    const env = { PATH: process.env.PATH ?? "", HOME: home, SKILLHUB_HTTP_TOKEN: token };
    const start = () => startHttpBinary(bin, ["--skills-dir", skills], { env, cwd: home });
    let hub: HttpBinary = await start();
    // The client's address stays the same across the restart, as a hub's name does; the port does not here.
    const route = (input: string | URL | Request, init?: RequestInit) =>
      fetch(new URL(new URL(String(input)).pathname, hub.base), init);
    const client = new Client(
      { name: "restart-test", version: "1.0.0" },
      { supportedProtocolVersions: ["2025-11-25"] },
    );
    const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1:1/mcp"), {
      fetch: route,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    try {
      await client.connect(transport);
      const before = transport.sessionId;
      expect(textOf((await client.callTool({ name: "skill", arguments: { name: "git-helper" } })) as never)).toContain(
        "git-helper",
      );
      expect(await hub.stop()).toBe(0);
      hub = await start();
      const after = await client.callTool({ name: "skill", arguments: { name: "git-helper" } });
      expect(textOf(after as never)).toContain("git-helper");
      expect(transport.sessionId).toBe(before);
      expect(hub.stderr()).toContain(`session ${before?.slice(0, 8)} resumed`);
      await client.close();
    } finally {
      await hub.stop();
    }
  });
});
