import { afterAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { cleanupTemp } from "../helpers/fs.ts";
import { haproxyBinary, startHaproxy } from "../helpers/haproxy.ts";
import { eventually, HANG_MS, textOf } from "../helpers/hub.ts";
import { hasChromium, launchBrowser } from "../ui/browser.ts";
import { sharedHub } from "./shared-hub.ts";

/**
 * The shared hub as a team deploys it: two replicas of the compiled binary
 * over one skills folder, behind Debian's haproxy, used by clients nobody here
 * wrote: the SDK's own client on both protocol revisions and the web page in
 * Chromium (the MCP Inspector CLI through it: test/e2e/inspector.test.ts, under
 * make conformance). A 2025-11-25 session opened by one replica is resumed by
 * the other, so plain round robin works; a balancer that keeps a session on its
 * replica (haproxy learns each Mcp-Session-Id from the initialize answer) keeps
 * its state in one place. 2026-07-28 needs neither. Skipped, saying so, without haproxy (.ci/run
 * installs it); the page part needs /usr/bin/chromium.
 */
afterAll(cleanupTemp);

const haproxy = haproxyBinary();
if (!haproxy)
  process.stderr.write(
    "skipping the shared-hub tests: haproxy is not installed (apt-get install haproxy; .ci/run does)\n",
  );

async function sdkClient(url: string, revision: "2025-11-25" | "2026-07-28"): Promise<Client> {
  const client = new Client(
    { name: `shared-hub-${revision}`, version: "1.0.0" },
    revision === "2026-07-28"
      ? { versionNegotiation: { mode: { pin: revision } } }
      : { supportedProtocolVersions: [revision] },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** What a team member's agent does: list, load a skill, fetch its script by URI, read it as a resource, use a prompt. */
async function work(client: Client): Promise<void> {
  expect((await client.listTools()).tools.map((t) => t.name)).toContain("skill");
  const loaded = textOf((await client.callTool({ name: "skill", arguments: { name: "pdf-invoice" } })) as never);
  expect(loaded).toContain("Base directory: skill://pdf-invoice");
  const script = await client.callTool({
    name: "read_skill_file",
    arguments: { skill_name: "pdf-invoice", file_path: "skill://pdf-invoice/scripts/extract.py" },
  });
  expect(textOf(script as never)).toContain("totals: 42");
  const resource = await client.readResource({ uri: "skill://pdf-invoice/scripts/extract.py" });
  expect(JSON.stringify(resource.contents)).toContain("totals: 42");
  expect((await client.getPrompt({ name: "git-helper" })).messages).toHaveLength(1);
}

describe.skipIf(!haproxy)("two replicas behind haproxy serve clients nobody here wrote", () => {
  test("sticky sessions: 2025-11-25 sessions stay on their replica, 2026-07-28 requests spread over both", async () => {
    const hub = await sharedHub("sticky sessions");
    try {
      const sessions = [];
      for (let i = 0; i < 4; i++) sessions.push(await sdkClient(hub.balancer.url, "2025-11-25"));
      for (const client of sessions) await work(client);
      for (const client of sessions) await client.close();
      // Four initializes, round robin: each replica holds sessions, and each session's calls found it.
      await eventually(() => hub.hits().every((n) => n >= 4));
      const before = hub.hits();
      const modern = await sdkClient(hub.balancer.url, "2026-07-28");
      await work(modern);
      await modern.close();
      await eventually(() => hub.hits().every((n, i) => n > (before[i] ?? 0)));
    } finally {
      await hub.stop();
    }
  }, 120_000);

  test("without stickiness a 2025-11-25 session still works: the replica that did not open it resumes it", async () => {
    const hub = await sharedHub("sticky sessions");
    const plain = await startHaproxy(
      hub.replicas.map((r) => r.base),
      { sticky: false },
    );
    try {
      const client = await sdkClient(plain.url, "2025-11-25");
      await work(client);
      await client.close();
      // The session was opened by one replica and resumed by the other, each with the same id.
      const resumed = hub.replicas.map((r) => r.stderr().match(/session (\S{8}) resumed/)?.[1]);
      expect(resumed.filter(Boolean)).toHaveLength(1);
    } finally {
      await plain.stop();
      await hub.stop();
    }
  }, 120_000);

  test("--stateless replicas, plain round robin: both revisions, every request on either replica", async () => {
    const hub = await sharedHub("stateless");
    try {
      for (const revision of ["2025-11-25", "2026-07-28"] as const) {
        const before = hub.hits();
        const client = await sdkClient(hub.balancer.url, revision);
        await work(client);
        await client.close();
        await eventually(() => hub.hits().every((n, i) => n > (before[i] ?? 0)));
      }
    } finally {
      await hub.stop();
    }
  }, 120_000);

  test.skipIf(!hasChromium())(
    "the web page in Chromium through haproxy: search, open a skill",
    async () => {
      const hub = await sharedHub("sticky sessions");
      const browser = await launchBrowser();
      try {
        const page = await browser.context.newPage();
        const WAIT = { timeout: HANG_MS };
        await page.goto(`${hub.balancer.base}/`);
        await page.getByRole("heading", { name: /^Skills: 2 served/ }).waitFor(WAIT);
        await page.getByLabel("Search skills").pressSequentially("invoice", { delay: 20 });
        const first = page.locator("#search-results li").first();
        await first.waitFor(WAIT);
        expect(await first.locator("h2").textContent()).toBe("pdf-invoice");
        await first.getByRole("link", { name: "pdf-invoice" }).click();
        await page.locator("#skill-body strong", { hasText: "totals" }).waitFor(WAIT);
        // The page's API requests reached a replica through the balancer.
        await eventually(() => hub.replicas.some((r) => r.stderr().includes("http: GET /ui/api/")));
      } finally {
        await browser.close();
        await hub.stop();
      }
    },
    180_000,
  );
});
