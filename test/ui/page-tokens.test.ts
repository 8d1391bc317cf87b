import { afterAll, describe, expect, test } from "bun:test";
import { realpathSync, renameSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { resolveConfig } from "../../src/config/resolve.ts";
import { httpServeOptions, startHttpServer } from "../../src/transports/http.ts";
import type { API_ROUTES } from "../../src/ui/routes.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { GIT_ENV, remoteRepo, skillText } from "../helpers/git.ts";
import { initialize } from "../helpers/http.ts";
import { testHub } from "../helpers/hub.ts";
import { writeNode } from "../helpers/tree.ts";

const TOKEN = "clients-token-0123456789abcdef";
const ADMIN = "operator-token-fedcba9876543210";
/** What one client asked for and said: no other client may read it on the page. */
const CONTEXT = "fire alice from payroll quietly";
const COMMENT = "missed the clause about bob's severance";
/** The user the server runs as (its analytics name it `dev-<user>`): no client may read it on the page. */
const OS_USER = "zelda-hubop";

afterAll(cleanupTemp);
const cleanups = closeAfterEach({ ignoringErrors: true, lastFirst: true });

/**
 * A real hub on 127.0.0.1 (port 0) with `tokens`, run by OS_USER: a project (in a folder of its own, `lab`)
 * whose skill names a folder of the project, a skills folder with a skill with files and a broken skill, a
 * skill tree with an asset, and analytics written to a file in a folder of its own; links out of the folders
 * the server knows (the project's skills folder to `lab` and to a file in `outside`, a skill's folder to
 * `lab`), and two team repositories in local folders (`repos`: one by its file:// URL, one by its path).
 * One MCP client has asked get_skill for CONTEXT and reported COMMENT, and the events are in the file.
 */
async function servedHub(tokens: { token?: string; adminToken?: string }) {
  const home = tempDir("skillhub-page-tokens-home-");
  const lab = tempDir("skillhub-page-tokens-lab-");
  const project = join(lab, "project");
  const projectSkills = join(project, ".claude", "skills");
  writeSkill(projectSkills, "payroll-rules", {
    description: "How payroll changes are made.",
    body: `# Payroll\n\nThe payroll exports land in ${join(project, "exports")}; see [the rules](rules.md).\n`,
  });
  write(join(projectSkills, "payroll-rules", "rules.md"), "# Rules\n\nNo change after the 25th.\n");
  const outside = tempDir("skillhub-page-tokens-outside-");
  // In a folder whose name holds a space, as a user's on macOS or Windows does.
  const log = write(join(outside, "Jane Doe", "server.log"), "a file the server has open\n");
  // Each shown as a warning that names where it leads: the project's parent, a file outside.
  symlinkSync("../../..", join(projectSkills, "up3"));
  symlinkSync(log, join(projectSkills, "fd5.md"));
  const skills = tempDir("skillhub-page-tokens-skills-");
  writeSkill(skills, "pdf-invoices", { description: "Extract totals from PDF invoices." });
  write(join(skills, "pdf-invoices", "scripts", "totals.py"), "print('totals')\n");
  symlinkSync(lab, join(skills, "pdf-invoices", "lab"));
  writeSkill(skills, "broken-skill", { description: null });
  const team = remoteRepo("team", { "skills/team-notes/SKILL.md": skillText("team-notes") });
  const ops = remoteRepo("ops", { "skills/ops-notes/SKILL.md": skillText("ops-notes") });
  const trees = tempDir("skillhub-page-tokens-trees-");
  writeNode(trees, "_root.md", { keywords: ["global"], description: "Universal rules" });
  writeNode(trees, "forms/_index.md", { keywords: ["forms"], description: "Form rules" });
  writeNode(trees, "forms/react.md", {
    keywords: ["react", "forms"],
    description: "React form rules",
    extra: "assets:\n  - file: assets/Form.tsx.template\n    description: A form component\n    type: template",
  });
  write(join(trees, "forms", "react", "assets", "Form.tsx.template"), "export function Form() {}\n");
  const analytics = join(tempDir("skillhub-page-tokens-analytics-"), "events.jsonl");
  const { hub } = testHub({
    home,
    flags: { "skills-dir": [skills, trees] },
    env: {
      SKILLHUB_ANALYTICS_FILE: analytics,
      SKILLHUB_PROJECT_DIR: project,
      SKILLHUB_TOOLS: "all",
      SKILLS_REPO: `${team.url},${ops.bare},${pathToFileURL(join(outside, "gone.git")).href}`,
      USER: OS_USER,
    },
    hub: { acceptRoots: false, git: { runner: { env: GIT_ENV }, intervalMs: 0 } },
  });
  const server = startHttpServer(hub, { port: 0, ...tokens });
  void hub.start();
  cleanups.push(async () => {
    await server.stop();
    await hub.shutdown();
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
  const folders = { home, lab, project, outside, skills, trees, analytics, team: team.bare, ops: ops.bare };
  return { page, folders, base, url: server.url, client, hub };
}

/** Each of `folders` as given and as the kernel resolves it, and OS_USER: what no client may read. */
function secretsOf(folders: Record<string, string>): string[] {
  return [...new Set(Object.values(folders).flatMap((folder) => [folder, realpathSync(folder)])), OS_USER];
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

type Page = (path: string, token?: string) => Promise<{ status: number; text: string }>;

/**
 * Every answer of the page's API with `token`: each route of API_ROUTES with the queries the page makes (every
 * skill's page and every file it lists), and `refused`, the answers that are errors (a skill or file that is
 * not there, a path out of a skill, a route that is not the API's).
 */
async function everyAnswer(page: Page, token?: string) {
  const q = encodeURIComponent;
  const list = JSON.parse((await page("skills?show=all&per=200", token)).text) as { items: Array<{ id: string }> };
  const ids = list.items.map((row) => row.id);
  const pages = await Promise.all(ids.map(async (id) => JSON.parse((await page(`skill?id=${q(id)}`, token)).text)));
  const files = pages.flatMap((detail, i) =>
    (detail.files as Array<{ path: string }>).map((f) => `file?id=${q(ids[i] as string)}&path=${q(f.path)}`),
  );
  const routes: Record<(typeof API_ROUTES)[number], string[]> = {
    generation: ["generation"],
    overview: ["overview"],
    skills: ["skills?show=all&per=200", "skills?show=problems", "skills?q=payroll"],
    diagnostics: ["diagnostics", "diagnostics?severity=error"],
    search: ["search?q=payroll%20exports", "search?q=pdf%20invoices", "search?q=forms"],
    skill: ids.map((id) => `skill?id=${q(id)}`),
    file: files,
    tree: ["tree"],
    usage: ["usage?days=30", "usage?days=7"],
  };
  const pdf = q(ids.find((id) => id.endsWith(":pdf-invoices")) ?? "");
  const refused = [
    "skill?id=no-such-skill",
    `file?id=${pdf}&path=missing.md`,
    `file?id=${pdf}&path=${q("../../etc/passwd")}`,
    "no-such-route",
  ];
  const fetchAll = (paths: string[]) =>
    Promise.all(paths.map(async (path) => ({ path, ...(await page(path, token)) })));
  return { ids, routes, ok: await fetchAll(Object.values(routes).flat()), refused: await fetchAll(refused) };
}

describe("the page's private parts: the clients' token and the admin token", () => {
  test("the clients' token: no answer of the API, on any route, errors too, names a folder of the server or the user it runs as", async () => {
    const { page, folders } = await servedHub({ token: TOKEN, adminToken: ADMIN });
    const client = await everyAnswer(page, TOKEN);
    for (const [route, paths] of Object.entries(client.routes))
      expect({ route, paths: paths.length > 0 }).toEqual({ route, paths: true });
    expect(client.ok.filter((a) => a.status !== 200)).toEqual([]);
    expect(client.refused.map((a) => a.status)).toEqual([404, 404, 403, 404]);
    const secrets = secretsOf(folders);
    const leaks = [...client.ok, ...client.refused].flatMap(({ path, text }) =>
      secrets.filter((secret) => text.includes(secret)).map((secret) => `${path}: ${secret}`),
    );
    expect(leaks).toEqual([]);
    // What it shows in their place: each skill's folder as its skill:// URI, the others by name.
    const answer = (path: string) => JSON.parse(client.ok.find((a) => a.path === path)?.text ?? "null");
    const list = answer("skills?show=all&per=200");
    for (const row of list.items) expect(row.dir).toStartWith("skill://");
    const payroll = answer(
      `skill?id=${encodeURIComponent(client.ids.find((id) => id.endsWith(":payroll-rules")) ?? "")}`,
    );
    expect(payroll.skill.file).toMatch(/^skill:\/\/.*SKILL\.md$/);
    // The name is the page's text, escaped as any of the skill's words; its links still lead to its files.
    expect(payroll.html).toContain("&lt;project&gt;/exports");
    expect(payroll.html).toContain("#/skill/");
    expect(answer("overview").analytics).toContain("as <server user>");
    expect(answer("usage?days=30").analytics).toContain("as <server user>");
    // A link's target outside every folder it names, and a repository in a local folder: <server path>.
    const warnings = answer("diagnostics").items.map(
      (d: { file: string; message: string }) => `${d.file}: ${d.message}`,
    );
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^<skills folder 'claude-project'>\/up3: links to <server path>, outside the project <project>;/,
      ),
    );
    expect(warnings).toContainEqual(
      expect.stringMatching(/^<skills folder 'claude-project'>\/fd5\.md: links to <server path>, /),
    );
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^skill:\/\/pdf-invoices\/lab: links to <server path>, outside its skill's folder skill:\/\/pdf-invoices;/,
      ),
    );
    expect(answer("overview").git.repos.map((r: { url: string }) => r.url)).toEqual([
      "<server path>",
      "<server path>",
      "<server path>",
    ]);
    // The page links its views by ids and paths within a skill, the same whoever reads it.
    const operator = await everyAnswer(page, ADMIN);
    expect(client.ids).toEqual(operator.ids);
    expect(client.routes.file).toEqual(operator.routes.file);
  });

  test("the admin token: a skill's page names its real folder, and the analytics the user the server runs as", async () => {
    const { page, folders } = await servedHub({ token: TOKEN, adminToken: ADMIN });
    const list = JSON.parse((await page("skills?show=all&per=200", ADMIN)).text);
    const pdf = list.items.find((row: { name: string }) => row.name === "pdf-invoices");
    expect(pdf.dir).toBe(join(folders.skills, "pdf-invoices"));
    const detail = JSON.parse((await page(`skill?id=${encodeURIComponent(pdf.id)}`, ADMIN)).text);
    expect(detail.skill.dir).toBe(join(folders.skills, "pdf-invoices"));
    expect(detail.skill.file).toBe(join(folders.skills, "pdf-invoices", "SKILL.md"));
    expect(JSON.parse((await page("overview", ADMIN)).text).analytics).toContain(`as dev-${OS_USER}`);
    expect(JSON.parse((await page("usage?days=30", ADMIN)).text).analytics).toContain(`as dev-${OS_USER}`);
    // Where a link leads, and where a repository is.
    const warnings = JSON.parse((await page("diagnostics", ADMIN)).text).items.map(
      (d: { message: string }) => d.message,
    );
    expect(warnings).toContainEqual(
      expect.stringContaining(`links to ${realpathSync(folders.lab)}, outside the project`),
    );
    expect(warnings).toContainEqual(
      expect.stringContaining(`links to ${realpathSync(join(folders.outside, "Jane Doe", "server.log"))}, `),
    );
    const repos = JSON.parse((await page("overview", ADMIN)).text).git.repos.map((r: { url: string }) => r.url);
    expect(repos).toEqual([
      pathToFileURL(folders.team).href,
      folders.ops,
      pathToFileURL(join(folders.outside, "gone.git")).href,
    ]);
  });

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
    expect(JSON.parse(overview).analytics).toContain(`as dev-${OS_USER}`);
    const skills = JSON.parse((await page("skills?show=all")).text);
    expect(skills.items.map((row: { dir: string }) => row.dir)).toContain(join(folders.skills, "pdf-invoices"));
  });

  test("an admin token alone: whoever connects without it is a client of the page", async () => {
    const { page, folders } = await servedHub({ adminToken: ADMIN });
    const client = await views(page);
    expect(client.usage).not.toContain(CONTEXT);
    expect(client.overview).not.toContain(folders.project);
    expect((await page("skills?show=all")).text).not.toContain(folders.skills);
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

describe("MCP over HTTP with the clients' token", () => {
  test("refresh_skills names no repository's folder, synced or failing; the admin's page still does", async () => {
    const { client, folders, page, hub } = await servedHub({ token: TOKEN, adminToken: ADMIN });
    const secrets = secretsOf(folders);
    const refreshed = await client.callTool({ name: "refresh_skills", arguments: {} });
    expect(refreshed.isError).toBe(true);
    const repos = (refreshed.structuredContent as { repos: Array<{ name: string; url: string }> }).repos;
    expect(repos.map((r) => r.url)).toEqual(["<server path>", "<server path>", "<server path>"]);
    const text = JSON.stringify(refreshed);
    expect(secrets.filter((secret) => text.includes(secret))).toEqual([]);
    expect(text).toContain("cannot reach <server path>");
    // A copy whose repository is gone: the operator's page names where it was.
    renameSync(folders.ops, `${folders.ops}.moved`);
    await hub.git?.refresh("test");
    const lastError = JSON.parse((await page("overview", ADMIN)).text).git.repos[1].lastError;
    expect(lastError.message).toContain(folders.ops);
    const clients = (await page("overview", TOKEN)).text;
    expect(secrets.filter((secret) => clients.includes(secret))).toEqual([]);
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
    cleanups.push(() => hub.shutdown());
    expect(() => startHttpServer(hub, { port: 0, token: TOKEN, adminToken: TOKEN })).toThrow(
      "SKILLHUB_ADMIN_TOKEN is the same as SKILLHUB_HTTP_TOKEN",
    );
    expect(() => startHttpServer(hub, { port: 0, token: TOKEN, adminToken: "two words" })).toThrow(
      "SKILLHUB_ADMIN_TOKEN holds a space",
    );
  });
});
