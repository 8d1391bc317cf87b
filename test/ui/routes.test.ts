import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Hub } from "../../src/server/hub.ts";
import { startHttpServer } from "../../src/transports/http.ts";
import { createHttpHandler, type HttpHandler } from "../../src/transports/http-handler.ts";
import { overview } from "../../src/ui/hub-view.ts";
import { CONTENT_SECURITY_POLICY } from "../../src/ui/routes.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";
import { GIT_ENV, remoteRepo, skillText } from "../helpers/git.ts";
import { testHub } from "../helpers/hub.ts";
import { HOSTILE_FILE, HOSTILE_NAME, HOSTILE_PAGES, HOSTILE_SVG, HOSTILE_SVG_TEXT, uiWorld } from "./world.ts";

const TOKEN = "a-long-test-token-0123456789";
let hub: Hub;
let handler: HttpHandler;
let open: HttpHandler;
let close: () => Promise<void>;

beforeAll(async () => {
  const w = uiWorld();
  ({ hub } = testHub({
    home: w.home,
    flags: { "skills-dir": [w.first, w.second, w.trees] },
    env: { SKILLHUB_ANALYTICS_FILE: w.analytics },
    hub: { acceptRoots: false },
  }));
  handler = createHttpHandler(hub, { host: "127.0.0.1", token: TOKEN, version: "test" });
  open = createHttpHandler(hub, { host: "127.0.0.1", version: "test" });
  void hub.start();
  await hub.ready;
  close = () => hub.shutdown();
});

afterAll(async () => {
  await close();
  await cleanupTemp();
});

function get(path: string, headers: Record<string, string> = {}, via = handler): Promise<Response> {
  return via.handle(
    new Request(`http://127.0.0.1:8000${path}`, {
      headers: { host: "127.0.0.1:8000", authorization: `Bearer ${TOKEN}`, ...headers },
    }),
  );
}

async function body(path: string, via = handler): Promise<Record<string, any>> {
  const response = await get(path, {}, via);
  expect(response.headers.get("content-type")).toStartWith("application/json");
  return (await response.json()) as Record<string, any>;
}

describe("the page and its security rules", () => {
  test("/ is the page, with a strict Content-Security-Policy, without a token", async () => {
    const response = await get("/", { authorization: "" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).not.toContain("unsafe");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await response.text();
    expect(html).toContain('<script type="module" src="/ui/app.js"></script>');
    for (const script of ["app", "dom", "views-skills", "views-hub"]) {
      const js = await get(`/ui/${script}.js`, { authorization: "" });
      expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect((await js.text()).length).toBeGreaterThan(1000);
    }
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
  });

  test("the API needs the token, as /mcp does", async () => {
    const none = await get("/ui/api/overview", { authorization: "" });
    expect(none.status).toBe(401);
    expect(((await none.json()) as any).error.code).toBe("UNAUTHORIZED");
    expect((await get("/ui/api/overview", { authorization: "Bearer wrong" })).status).toBe(401);
    expect((await get("/ui/api/overview")).status).toBe(200);
    expect((await get("/ui/api/overview", { authorization: "" }, open)).status).toBe(200);
  });

  test("Host and Origin are checked before anything", async () => {
    expect((await get("/", { host: "evil.example" })).status).toBe(403);
    expect((await get("/ui/api/skills", { origin: "https://evil.example" })).status).toBe(403);
    expect((await get("/ui/api/skills", { origin: "http://127.0.0.1:8000" })).status).toBe(200);
  });

  test("read-only: anything but GET is refused", async () => {
    const response = await handler.handle(
      new Request("http://127.0.0.1:8000/ui/api/skills", {
        method: "POST",
        headers: { host: "127.0.0.1:8000", authorization: `Bearer ${TOKEN}` },
        body: "{}",
      }),
    );
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
  });

  test("/mcp and /healthz still answer as before", async () => {
    expect((await get("/healthz")).status).toBe(200);
    expect((await get("/nowhere")).status).toBe(404);
  });
});

describe("the API", () => {
  test("skills: every skill with source, location, shadowing and diagnostics, paginated", async () => {
    const all = await body("/ui/api/skills?per=2");
    expect(all.total).toBe(8);
    // What the page's heading shows: served skills (as `skillhub list` counts them) and shadowed ones.
    expect([all.served, all.shadowed]).toEqual([7, 1]);
    expect(all.items).toHaveLength(2);
    expect(all.pages).toBe(4);
    const shadowed = await body("/ui/api/skills?show=shadowed");
    expect(shadowed.items.map((r: any) => [r.id, r.shadowedBy ?? null, r.shadows])).toEqual([
      ["first:git-commits", null, ["second:git-commits"]],
      ["second:git-commits", "first:git-commits", []],
    ]);
    const filtered = await body("/ui/api/skills?q=invoice%20pdf");
    expect(filtered.items.map((r: any) => r.name)).toEqual(["pdf-invoices"]);
    expect(filtered.items[0]).toMatchObject({ source: "first", location: "explicit", category: "documents" });
  });

  test("skills and search over a socket: a q of 500 characters is read, a longer one refused with 400", async () => {
    const server = startHttpServer(hub, { port: 0, token: TOKEN });
    try {
      const ask = (route: string, q: string) =>
        fetch(`${server.url.replace(/\/mcp$/, "")}/ui/api/${route}?${new URLSearchParams({ q })}`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
      // Words repeated up to the limit still find the skill (the list matches each once).
      const atLimit = `${"invoice ".repeat(61)}pdf-invoices`;
      expect(atLimit).toHaveLength(500);
      const listed = await ask("skills", atLimit);
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as any).items.map((r: any) => r.name)).toEqual(["pdf-invoices"]);
      for (const route of ["skills", "search"]) {
        const refused = await ask(route, `${atLimit}s`);
        expect({ route, status: refused.status, body: await refused.json() }).toEqual({
          route,
          status: 400,
          body: { error: { code: "INVALID_ARGUMENT", message: "The query is longer than 500 characters." } },
        });
      }
    } finally {
      await server.stop();
    }
  });

  test("diagnostics: the broken skill is reported", async () => {
    const d = await body("/ui/api/diagnostics?severity=error");
    expect(d.items.some((x: any) => x.code === "missing-description" && x.file.endsWith("broken-skill/SKILL.md"))).toBe(
      true,
    );
  });

  test("search: search_skills' ranking and excerpts", async () => {
    const s = await body("/ui/api/search?q=invoice%20totals");
    expect(s.hits[0]).toMatchObject({ id: "first:pdf-invoices", name: "pdf-invoices" });
    expect(s.hits[0].excerpt).toContain("totals");
    // As text, not Markdown: the body's **totals** and [the reference](docs/reference.md) read plainly.
    expect(s.hits[0].excerpt).not.toMatch(/[*#`[\]]/);
    expect((await body("/ui/api/search?q=")).hits).toEqual([]);
  });

  test("skill: rendered Markdown, files, links into the file view", async () => {
    const s = await body(`/ui/api/skill?id=${encodeURIComponent("first:pdf-invoices")}`);
    expect(s.html).toContain("<strong>totals</strong>");
    expect(s.html).toContain('href="#/skill/first%3Apdf-invoices/file/docs/reference.md"');
    expect(s.files.map((f: any) => f.path).sort()).toEqual(["docs/reference.md", "logo.png"]);
    const missing = await get("/ui/api/skill?id=nope");
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe("SKILL_NOT_FOUND");
  });

  test("file: read-only, through read_skill_file's confinement", async () => {
    const id = encodeURIComponent("first:pdf-invoices");
    const ref = await body(`/ui/api/file?id=${id}&path=docs/reference.md`);
    expect(ref).toMatchObject({ ok: true, binary: false, truncated: false });
    expect(ref.html).toContain("<code>number</code>");
    const png = await body(`/ui/api/file?id=${id}&path=logo.png`);
    expect(png).toMatchObject({ binary: true, mimeType: "image/png" });
    expect(png.text).toBeUndefined();
    for (const path of ["../git-commits/SKILL.md", "/etc/passwd", "leak.txt", "docs/../../x"]) {
      const response = await get(`/ui/api/file?id=${id}&path=${encodeURIComponent(path)}`);
      expect(response.status).toBe(path === "/etc/passwd" || path === "leak.txt" || path.includes("..") ? 403 : 404);
      expect(await response.text()).not.toContain("TOP-SECRET");
    }
  });

  test("hostile skill: its Markdown, description and file names come back escaped or as JSON strings", async () => {
    const s = await body(`/ui/api/skill?id=${encodeURIComponent(`first:${HOSTILE_NAME}`)}`);
    expect(s.html).not.toMatch(/<(script|img|svg|b)\b/i);
    expect(s.html).toContain("&lt;script&gt;");
    expect(s.html).not.toContain('href="javascript');
    expect(s.files.map((f: any) => f.path)).toContain(HOSTILE_FILE);
    const file = await body(
      `/ui/api/file?id=${encodeURIComponent(`first:${HOSTILE_NAME}`)}&path=${encodeURIComponent(HOSTILE_FILE)}`,
    );
    expect(file.html).toBe("<p>&lt;script&gt;window.__pwned = 8&lt;/script&gt;</p>");
    // HTML and SVG, which would run on the hub's origin (the page's, with its token), come back as JSON
    // text for the page to show as text; no route serves a skill's file with its own type.
    const fileOf = (path: string) =>
      get(`/ui/api/file?id=${encodeURIComponent(`first:${HOSTILE_NAME}`)}&path=${encodeURIComponent(path)}`);
    const html = await fileOf(HOSTILE_PAGES.html);
    expect(html.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(html.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    expect(await html.json()).toMatchObject({
      binary: false,
      text: "<html><script>window.__pwned = 9</script></html>\n",
    });
    const svg = await fileOf(HOSTILE_SVG);
    expect(svg.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const shown = (await svg.json()) as Record<string, unknown>;
    expect(shown).toMatchObject({ binary: false, mimeType: "image/svg+xml", text: HOSTILE_SVG_TEXT });
    expect(shown.html).toBeUndefined();
    for (const path of [`/ui/${HOSTILE_PAGES.html}`, `/ui/api/${HOSTILE_PAGES.svg}`, `/${HOSTILE_PAGES.svg}`])
      expect((await get(path)).headers.get("content-type"), path).toStartWith("application/json");
  });

  test("tree: nodes with keywords and inherited chains; tree files through get_asset's rules", async () => {
    const t = await body("/ui/api/tree");
    expect(t.tree.path).toBe("_root");
    const ui = t.tree.children.find((c: any) => c.path === "ui/_index");
    const react = ui.children.find((c: any) => c.path === "ui/react");
    expect(react.keywords).toEqual(["react", "components"]);
    expect(react.chain).toEqual(["_root", "ui/_index", "ui/react"]);
    const auth = t.tree.children.find((c: any) => c.path === "api/auth");
    expect(auth).toMatchObject({ inherit: false, chain: ["api/auth"] });
    const page = await body(`/ui/api/skill?id=${encodeURIComponent(react.id)}`);
    expect(page.tree.chain.map((c: any) => c.path)).toEqual(["_root", "ui/_index", "ui/react"]);
    expect(page.files).toEqual([{ path: "assets/Form.tsx.template", kind: "asset", description: "A form component" }]);
    const asset = await body(`/ui/api/file?id=${encodeURIComponent(react.id)}&path=assets/Form.tsx.template`);
    expect(asset.text).toContain("export function Form");
  });

  test("usage: loads per skill per day, top skills, searches without a hit, as SVG", async () => {
    const u = await body("/ui/api/usage?days=7", open);
    expect(u.days).toHaveLength(7);
    expect(u.days[6]).toBe("2026-11-22");
    const pdf = u.series.find((s: any) => s.skill === "pdf-invoices");
    expect(pdf.counts.slice(4)).toEqual([2, 3, 4]);
    expect(u.summary.most_used.map((m: any) => [m.skill, m.uses])).toEqual([
      ["pdf-invoices", 40],
      ["git-commits", 13],
      ["ui/react", 7],
    ]);
    expect(u.misses[0]).toEqual({ label: "search: kubernetes helm chart", value: 2 });
    expect(u.svg.loads).toStartWith('<svg xmlns="http://www.w3.org/2000/svg" class="chart wide" viewBox="0 0 720 ');
    // And narrow, for phones: drawn at about their width, labels clipped shorter.
    expect(u.svg.top).toContain('<svg xmlns="http://www.w3.org/2000/svg" class="chart narrow" viewBox="0 0 360 ');
    expect(u.svg.misses).toContain("&lt;script&gt;");
    expect(u.svg.misses).not.toContain("<script>");
  });

  test("generation: a cheap number for live updates", async () => {
    const g = await body("/ui/api/generation");
    expect(typeof g.generation).toBe("number");
    expect(typeof g.content).toBe("string");
  });
});

describe("git sync status", () => {
  test("repositories with their local copy's state; credentials in a URL are never shown", () => {
    const { hub } = testHub({ env: { SKILLS_REPO: "https://someone:s3cret-token@git.example.com/team/skills.git" } });
    try {
      const git = overview(hub).git;
      expect(git).toMatchObject({ configured: true, branch: "main", lastSync: null });
      expect(git.repos).toHaveLength(1);
      expect(git.repos[0]).toMatchObject({
        url: "https://git.example.com/team/skills.git",
        commit: null,
        lastSync: null,
      });
      expect(JSON.stringify(git)).not.toContain("s3cret");
    } finally {
      hub.close();
    }
  });

  test("a failed sync: its code, time and message, without the server's folders", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
    const home = tempDir("skillhub-ui-git-");
    // The remote lies in SkillHub's home, so that git's message names a folder of the server.
    const upstream = join(home, "hub", "upstream", "team.git");
    mkdirSync(dirname(upstream), { recursive: true });
    renameSync(remote.bare, upstream);
    const { hub } = testHub({
      home,
      env: { SKILLHUB_HOME: join(home, "hub"), SKILLS_REPO: pathToFileURL(upstream).href },
      hub: { git: { runner: { env: GIT_ENV }, intervalMs: 0 } },
    });
    try {
      void hub.start();
      await hub.ready;
      const synced = overview(hub).git.repos[0];
      const commit = synced?.commit;
      expect(commit).toMatch(/^[0-9a-f]{40}$/);
      expect(synced?.lastError).toBeNull();
      renameSync(upstream, `${upstream}.moved`);
      await hub.git?.refresh("test");
      const failed = overview(hub).git.repos[0];
      expect(failed?.commit).toBe(commit ?? "");
      expect(failed?.lastError).toMatchObject({ code: "GIT_UNREACHABLE", at: expect.stringMatching(/^\d{4}-/) });
      expect(failed?.lastError?.message).toStartWith("cannot reach <skillhub home>/upstream/team.git");
      expect(failed?.lastError?.message).not.toContain(home);
    } finally {
      hub.close();
    }
  });
});
