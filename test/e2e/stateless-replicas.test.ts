import { afterAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { startHttpBinary } from "../helpers/http-binary.ts";
import { textOf } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const bin = binary();

/**
 * A plain round-robin HTTP proxy: each request goes to the next upstream, no
 * affinity, no session awareness. Written in the test so that the property
 * (no affinity needed) is checked on every machine; shared-hub.test.ts does
 * the same and more behind Debian's haproxy where it is installed.
 */
function roundRobinProxy(upstreams: string[]) {
  const hits = upstreams.map(() => 0);
  let next = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const i = next++ % upstreams.length;
      hits[i] = (hits[i] ?? 0) + 1;
      const url = new URL(request.url);
      const target = new URL(url.pathname + url.search, upstreams[i]);
      const headers = new Headers(request.headers);
      headers.set("host", target.host);
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      return fetch(target, { method: request.method, headers, body });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/mcp`, hits, stop: () => server.stop(true) };
}

describe("two stateless replicas behind a round-robin proxy serve one client", () => {
  test.each(["2026-07-28", "2025-11-25"] as const)("revision %s", async (revision) => {
    const home = tempDir("skillhub-replica-home-");
    const skills = tempDir("skillhub-replica-skills-");
    writeSkill(skills, "git-helper", { description: "Git workflow helper" });
    write(`${skills}/git-helper/references/GUIDE.md`, "# Guide\n");
    const env = { PATH: process.env.PATH ?? "", HOME: home };
    const replicas = await Promise.all(
      [0, 1].map(() => startHttpBinary(bin, ["--skills-dir", skills, "--stateless"], { env, cwd: home })),
    );
    const proxy = roundRobinProxy(replicas.map((r) => r.base));
    try {
      const client = new Client(
        { name: "replicas", version: "1.0.0" },
        revision === "2026-07-28"
          ? { versionNegotiation: { mode: { pin: revision } } }
          : { supportedProtocolVersions: [revision] },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain("skill");
      const loaded = await client.callTool({ name: "skill", arguments: { name: "git-helper" } });
      expect(textOf(loaded as never)).toContain("git-helper");
      const ext = new SkillsClient(client);
      const [entry] = (await ext.list()).skills;
      expect(entry?.uri).toBe("skill://git-helper/SKILL.md");
      // Digests agree across replicas: the entry from one verifies the bytes from the other.
      for (const ref of [undefined, "references/GUIDE.md"])
        expect((await ext.read(entry as never, ref)).verified).toBe(true);
      expect((await client.getPrompt({ name: "git-helper" })).messages).toHaveLength(1);
      await client.close();
      expect(proxy.hits.every((n) => n >= 2)).toBe(true);
    } finally {
      proxy.stop();
      for (const r of replicas) await r.stop();
    }
  });
});
