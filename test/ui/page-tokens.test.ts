import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { resolveConfig } from "../../src/config/resolve.ts";
import { httpServeOptions, startHttpServer } from "../../src/transports/http.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { initialize } from "../helpers/http.ts";
import { testHub } from "../helpers/hub.ts";

const TOKEN = "clients-token-0123456789abcdef";
const ADMIN = "operator-token-fedcba9876543210";
/** What one client asked for and said: no other client may read it on the page. */
const CONTEXT = "fire alice from payroll quietly";
const COMMENT = "missed the clause about bob's severance";

afterAll(cleanupTemp);
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0)
    await cleanups
      .pop()?.()
      .catch(() => undefined);
});

/**
 * A real hub on 127.0.0.1 (port 0) with `tokens`, a project, a skills folder with a broken skill, and
 * analytics written to a file in a folder of its own; one MCP client has asked get_skill for CONTEXT and
 * reported COMMENT, and the events are in the file.
 */
async function servedHub(tokens: { token?: string; adminToken?: string }) {
  const home = tempDir("skillhub-page-tokens-home-");
  const project = tempDir("skillhub-page-tokens-project-");
  writeSkill(join(project, ".claude", "skills"), "payroll-rules", { description: "How payroll changes are made." });
  const skills = tempDir("skillhub-page-tokens-skills-");
  writeSkill(skills, "pdf-invoices", { description: "Extract totals from PDF invoices." });
  writeSkill(skills, "broken-skill", { description: null });
  const analytics = join(tempDir("skillhub-page-tokens-analytics-"), "events.jsonl");
  const { hub } = testHub({
    home,
    flags: { "skills-dir": [skills] },
    env: { SKILLHUB_ANALYTICS_FILE: analytics, SKILLHUB_PROJECT_DIR: project, SKILLHUB_TOOLS: "all" },
    hub: { acceptRoots: false },
  });
  const server = startHttpServer(hub, { port: 0, ...tokens });
  void hub.start();
  cleanups.push(async () => {
    await server.stop();
    hub.close();
  });
  await hub.ready;
  const base = server.url.replace(/\/mcp$/, "");
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: tokens.token ? { authorization: `Bearer ${tokens.token}` } : {} },
  });
  const client = new Client({ name: "page-tokens", version: "1.0.0" });
  await client.connect(transport);
  cleanups.push(() => client.close());
  expect((await client.callTool({ name: "get_skill", arguments: { context: CONTEXT } })).isError).toBeFalsy();
  const feedback = { skill_path: "pdf-invoices", useful: false, comment: COMMENT };
  expect((await client.callTool({ name: "report_usage", arguments: feedback })).isError).toBeFalsy();
  await hub.analytics.publisher?.flush();
  /** The page's API answer to `path` with `token` as the bearer (none: no header), as text. */
  const page = async (path: string, token?: string) => {
    const response = await fetch(`${base}/ui/api/${path}`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
    return { status: response.status, text: await response.text() };
  };
  const folders = { home, project, skills, analytics };
  return { page, folders, base, url: server.url };
}

/** The three views that may hold other clients' words or the server's folders, as text. */
async function views(
  page: (path: string, token?: string) => Promise<{ status: number; text: string }>,
  token?: string,
) {
  const [usage, overview, diagnostics] = await Promise.all(
    ["usage?days=30", "overview", "diagnostics"].map((path) => page(path, token)),
  );
  for (const view of [usage, overview, diagnostics]) expect(view?.status).toBe(200);
  return { usage: usage?.text ?? "", overview: overview?.text ?? "", diagnostics: diagnostics?.text ?? "" };
}

describe("the page's private parts: the clients' token and the admin token", () => {
  test("the clients' token: usage without other clients' words, status with the server's folders named", async () => {
    const { page, folders } = await servedHub({ token: TOKEN, adminToken: ADMIN });
    const { usage, overview, diagnostics } = await views(page, TOKEN);
    const u = JSON.parse(usage);
    expect(usage).not.toContain(CONTEXT);
    expect(usage).not.toContain("bob's severance");
    expect(u.withheld).toContain("SKILLHUB_ADMIN_TOKEN");
    expect(u.withheld).toContain("skillhub stats");
    // Counts stay: how many requests found nothing, and the feedback's tally per skill.
    expect(u.summary.by_type.no_match).toBe(1);
    expect(u.summary.feedback).toEqual([
      { skill: "pdf-invoices", useful: 0, not_useful: 1, not_useful_rate: 1, comments: [] },
    ]);
    for (const text of [usage, overview, diagnostics])
      for (const folder of Object.values(folders)) expect(text).not.toContain(folder);
    const o = JSON.parse(overview);
    expect(o.projectRoot.dir).toBe("<project>");
    expect(o.analytics).toContain("<analytics file>");
    for (const source of o.sources) expect(source.dir).toMatch(/^<skills folder '[^/]+'>$/);
    expect(o.withheld).toContain("skillhub doctor");
    expect(JSON.parse(diagnostics).items.length).toBeGreaterThan(0);
  });

  test("the admin token: every view as the operator sees it", async () => {
    const { page, folders } = await servedHub({ token: TOKEN, adminToken: ADMIN });
    const { usage, overview, diagnostics } = await views(page, ADMIN);
    const u = JSON.parse(usage);
    expect(u.summary.no_match.map((n: { context: string }) => n.context)).toEqual([CONTEXT]);
    expect(u.summary.feedback[0].comments).toEqual([COMMENT]);
    expect(u.misses).toEqual([{ label: `get_skill: ${CONTEXT}`, value: 1 }]);
    expect(u.withheld).toBeUndefined();
    const o = JSON.parse(overview);
    expect(o.projectRoot.dir).toBe(folders.project);
    expect(o.analytics).toContain(folders.analytics);
    expect(o.sources.map((s: { dir: string }) => s.dir)).toContain(folders.skills);
    expect(o.withheld).toBeUndefined();
    expect(diagnostics).toContain(folders.skills);
  });

  test("no token at all (this machine only): everything, without a token, as before", async () => {
    const { page, folders } = await servedHub({});
    const { usage, overview } = await views(page);
    expect(usage).toContain(CONTEXT);
    expect(usage).toContain("bob's severance");
    expect(JSON.parse(overview).projectRoot.dir).toBe(folders.project);
    expect(JSON.parse(overview).withheld).toBeUndefined();
  });

  test("an admin token alone: whoever connects without it is a client of the page", async () => {
    const { page, folders } = await servedHub({ adminToken: ADMIN });
    const client = await views(page);
    expect(client.usage).not.toContain(CONTEXT);
    expect(client.overview).not.toContain(folders.project);
    const operator = await views(page, ADMIN);
    expect(operator.usage).toContain(CONTEXT);
    expect(operator.overview).toContain(folders.project);
  });

  test("a wrong token, or none, is refused by the page's API; either token opens it", async () => {
    const { page } = await servedHub({ token: TOKEN, adminToken: ADMIN });
    for (const token of [TOKEN, ADMIN]) expect((await page("usage?days=30", token)).status).toBe(200);
    for (const token of [undefined, "not-the-token", `${ADMIN}x`, ADMIN.slice(0, -1)]) {
      const refused = await page("usage?days=30", token);
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.text).error.code).toBe("UNAUTHORIZED");
      expect(refused.text).not.toContain(CONTEXT);
    }
  });

  test("the admin token is the page's only: /mcp refuses it", async () => {
    const { url, page } = await servedHub({ token: TOKEN, adminToken: ADMIN });
    expect((await page("overview", ADMIN)).status).toBe(200);
    const send = (token: string) =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify(initialize()),
      });
    const refused = await send(ADMIN);
    expect(refused.status).toBe(401);
    await refused.body?.cancel();
    const accepted = await send(TOKEN);
    expect(accepted.status).toBe(200);
    await accepted.body?.cancel();
  });
});

describe("SKILLHUB_ADMIN_TOKEN", () => {
  test("is read from the environment, and the server refuses to start with one no browser can send, or the clients'", () => {
    const home = tempDir("skillhub-page-tokens-config-");
    const config = (env: Record<string, string>) =>
      resolveConfig({ env, flags: {}, homeDir: home, cwd: home }).config.server;
    expect(httpServeOptions(config({ SKILLHUB_HTTP_TOKEN: TOKEN, SKILLHUB_ADMIN_TOKEN: ADMIN }))).toMatchObject({
      token: TOKEN,
      adminToken: ADMIN,
    });
    const { hub } = testHub({ home });
    cleanups.push(async () => hub.close());
    expect(() => startHttpServer(hub, { port: 0, token: TOKEN, adminToken: TOKEN })).toThrow(
      "SKILLHUB_ADMIN_TOKEN is the same as SKILLHUB_HTTP_TOKEN",
    );
    expect(() => startHttpServer(hub, { port: 0, token: TOKEN, adminToken: "two words" })).toThrow(
      "SKILLHUB_ADMIN_TOKEN holds a space",
    );
  });
});
