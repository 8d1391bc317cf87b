import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { cleanupTemp, write, writeSkill } from "../helpers/fs.ts";
import { GIT_ENV, remoteRepo, skillText } from "../helpers/git.ts";
import { type HttpBinary, startHttpBinary } from "../helpers/http-binary.ts";
import { testHub } from "../helpers/hub.ts";
import { eventually, HANG_MS } from "../helpers/wait.ts";
import { freshBinary, hasChromium, launchBrowser, SCREENSHOTS } from "./browser.ts";
import { HOSTILE_FILE, HOSTILE_NAME, HOSTILE_PAGES, HOSTILE_SVG, uiWorld } from "./world.ts";

/**
 * The page in a real browser: headless Debian Chromium against the compiled
 * binary over HTTP. One browser for the whole file; a few pages, each a user
 * journey. Skipped (one line) where /usr/bin/chromium is not installed.
 */
const available = hasChromium();
if (!available)
  console.warn("test/ui/browser.test.ts: skipped, /usr/bin/chromium is not installed (apt-get install chromium)");
const suite = available ? describe : describe.skip;

const TOKEN = "browser-test-token-0123456789abcdef";
const ADMIN = "browser-admin-token-fedcba9876543210";
const WAIT = { timeout: HANG_MS };
let world: ReturnType<typeof uiWorld>;
let server: HttpBinary;
let guarded: HttpBinary;
let context: BrowserContext;
let closeBrowser: () => Promise<void>;
/** Another site's page (another port), listed in the guarded server's SKILLHUB_ALLOWED_ORIGINS. */
let otherSite: ReturnType<typeof Bun.serve> | undefined;

suite("the page in Chromium", () => {
  beforeAll(async () => {
    world = uiWorld();
    // A skill longer than the screen, whose last links lead to a file, to a file that does not exist and
    // into another skill.
    const paragraphs = Array.from({ length: 150 }, (_, i) => `Paragraph ${i + 1} of the long guide.`);
    writeSkill(world.first, "long-guide", {
      description: "A guide longer than the screen.",
      body: `# Long guide\n\n${paragraphs.join("\n\n")}\n\nRead [the end](docs/end.md), [gone](docs/gone.md) and [other](../git-commits/SKILL.md).\n`,
    });
    write(join(world.first, "long-guide", "docs", "end.md"), "# The end\n");
    const bin = freshBinary();
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: world.home,
      SKILLHUB_HOME: join(world.home, ".skillhub"),
      SKILLHUB_ANALYTICS_FILE: world.analytics,
      SKILLHUB_RESCAN_SECONDS: "1",
    };
    // A team repository synced once, then moved away: the server's own sync fails, its copy is served.
    const team = remoteRepo("team", { "skills/team-notes/SKILL.md": skillText("team-notes") });
    const synced = testHub({
      home: world.home,
      env: { SKILLHUB_HOME: env.SKILLHUB_HOME, SKILLS_REPO: team.url },
      hub: { git: { runner: { env: GIT_ENV }, intervalMs: 0 } },
    }).hub;
    void synced.start();
    await synced.ready;
    synced.close();
    renameSync(team.bare, `${team.bare}.moved`);
    const dirs = ["--skills-dir", world.first, "--skills-dir", world.second, "--skills-dir", world.trees];
    otherSite = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => new Response("<!doctype html><title>tools</title>", { headers: { "content-type": "text/html" } }),
    });
    const guardedEnv = {
      ...env,
      SKILLHUB_HTTP_TOKEN: TOKEN,
      SKILLHUB_ADMIN_TOKEN: ADMIN,
      SKILLHUB_ALLOWED_ORIGINS: `http://127.0.0.1:${otherSite.port}`,
    };
    [server, guarded] = await Promise.all([
      startHttpBinary(bin, dirs, { env: { ...env, SKILLS_REPO: team.url }, cwd: world.home, timeoutMs: 30_000 }),
      startHttpBinary(bin, dirs, { env: guardedEnv, cwd: world.home, timeoutMs: 30_000 }),
    ]);
    ({ context, close: closeBrowser } = await launchBrowser());
  });

  afterAll(async () => {
    await closeBrowser?.();
    await Promise.all([server?.stop(), guarded?.stop(), otherSite?.stop(true)]);
    await cleanupTemp();
  });

  /** A page that fails the test on any dialog (alert from a hostile skill) and records script errors. */
  async function newPage(): Promise<{ page: Page; errors: string[] }> {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("dialog", (dialog) => {
      errors.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
    return { page, errors };
  }

  test("the server's log names the page's address, and whether it asks for the token", async () => {
    await eventually(() => server.stderr().includes(`web page at ${server.base}/\n`));
    await eventually(() => guarded.stderr().includes(`web page at ${guarded.base}/ (it asks for the token once)`));
  });

  test("search as you type, open a skill, read one of its files", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${server.base}/`);
    await page.getByRole("heading", { name: /^Skills: \d+ served/ }).waitFor(WAIT);
    // One count per kind, as `skillhub list` gives them: served skills, and the one a same-named skill hides.
    const counts = await page.locator("main > h1").textContent();
    expect(counts).toMatch(/^Skills: \d+ served, 1 shadowed$/);
    await page.getByLabel("Search skills").pressSequentially("invoice totals", { delay: 20 });
    const first = page.locator("#search-results li").first();
    await first.waitFor(WAIT);
    expect(await first.locator("h2").textContent()).toBe("pdf-invoices");
    expect(await first.locator(".excerpt").textContent()).toContain("totals");
    await page.screenshot({ path: join(SCREENSHOTS, "search.png"), fullPage: true });
    expect(await page.title()).toBe("Search: invoice totals · SkillHub");
    await first.getByRole("link", { name: "pdf-invoices" }).click();
    await page.locator("#skill-body strong", { hasText: "totals" }).waitFor(WAIT);
    expect(await page.locator("main > h1").textContent()).toBe("pdf-invoices");
    // One page heading (the SKILL.md's own `#` is a section of it), the tab named after it, the search left.
    expect(await page.locator("h1").count()).toBe(1);
    expect(await page.title()).toBe("pdf-invoices · SkillHub");
    expect(await page.getByLabel("Search skills").inputValue()).toBe("");
    await page.screenshot({ path: join(SCREENSHOTS, "skill.png"), fullPage: true });
    // Keyboard: the first Tab reaches the skip link, which moves focus to the content and keeps the route.
    const route = page.url();
    await page.reload();
    await page.locator("#skill-body").waitFor(WAIT);
    await page.keyboard.press("Tab");
    expect(await page.evaluate<string>("document.activeElement.textContent")).toBe("Skip to content");
    await page.keyboard.press("Enter");
    expect(await page.evaluate<string>("document.activeElement.id")).toBe("main");
    expect(page.url()).toBe(route);
    await page.locator("#skill-body").getByRole("link", { name: "the reference" }).click();
    await page.locator("#file-body code", { hasText: "number" }).waitFor(WAIT);
    expect(errors).toEqual([]);
    await page.close();
  });

  test("a skill tree, keywords and inherited chains", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${server.base}/#/trees`);
    const react = page
      .locator("#skill-tree li", { has: page.getByRole("link", { name: "react", exact: true }) })
      .last();
    await react.waitFor(WAIT);
    expect(await react.locator(".keywords").first().textContent()).toBe("reactcomponents");
    expect(await react.locator(".chain").first().textContent()).toBe("inherits: _root → ui/_index → ui/react");
    await page.screenshot({ path: join(SCREENSHOTS, "trees.png"), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  test("usage charts from recorded analytics, at phone width", async () => {
    const { page, errors } = await newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.base}/#/usage`);
    // The narrow charts, at this width (the wide ones are hidden).
    await page.locator("#chart-loads svg.narrow rect").first().waitFor(WAIT);
    expect(await page.locator("#chart-loads svg.narrow rect").count()).toBeGreaterThanOrEqual(6);
    expect(await page.locator("#chart-top svg.narrow").getAttribute("aria-label")).toBe("Most used skills");
    expect(await page.locator("#chart-misses").textContent()).toContain("kubernetes helm chart");
    // Usable on a phone: nothing wider than the screen. (Page code as strings: the tests compile without DOM types.)
    expect(await page.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth")).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, "usage-phone.png"), fullPage: true });
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.screenshot({ path: join(SCREENSHOTS, "usage.png"), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  test("a hostile skill's HTML and file names show as text and never run", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${server.base}/#/skill/${encodeURIComponent(`first:${HOSTILE_NAME}`)}`);
    await page.locator("#skill-body").waitFor(WAIT);
    expect(await page.locator("#skill-body h2").textContent()).toBe("Hostile <script>window.__pwned = 1</script>");
    expect(await page.locator("#skill-body").textContent()).toContain('<img src="x" onerror="window.__pwned = 2">');
    expect(await page.locator("#skill-body script, #skill-body img, #skill-body svg, #skill-body iframe").count()).toBe(
      0,
    );
    expect(await page.locator('#skill-body a[href^="javascript"]').count()).toBe(0);
    await page.getByRole("link", { name: HOSTILE_FILE }).click();
    await page.locator("main > h1", { hasText: HOSTILE_FILE }).waitFor(WAIT);
    expect(await page.locator("#file-body").textContent()).toContain("<script>window.__pwned = 8</script>");
    await page.screenshot({ path: join(SCREENSHOTS, "hostile.png"), fullPage: true });
    // HTML and SVG files are shown as their source, never loaded as pages or drawn as images of the hub.
    const skill = encodeURIComponent(`first:${HOSTILE_NAME}`);
    await page.goto(`${server.base}/#/skill/${skill}/file/${HOSTILE_PAGES.html}`);
    await page.locator("main > h1", { hasText: HOSTILE_PAGES.html }).waitFor(WAIT);
    expect(await page.locator("main").textContent()).toContain("<script>window.__pwned = 9</script>");
    await page.goto(`${server.base}/#/skill/${skill}/file/${HOSTILE_SVG}`);
    await page.locator("#file-body", { hasText: "<svg" }).waitFor(WAIT);
    expect(await page.locator("main svg, main img, main iframe, main object, main embed").count()).toBe(0);
    expect(await page.evaluate<string>("typeof window.__pwned")).toBe("undefined");
    expect(errors).toEqual([]);
    await page.close();
  });

  test("what is not there is 'Not found', with a way back; the page still works", async () => {
    const { page, errors } = await newPage();
    // A malformed escape names what it cannot find.
    await page.goto(`${server.base}/#/skill/%E0`);
    await page.locator("main > h1", { hasText: "Not found" }).waitFor(WAIT);
    expect(await page.locator("main .notice").textContent()).toContain("%E0");
    expect(await page.title()).toBe("Not found · SkillHub");
    await page.getByRole("link", { name: "← All skills" }).click();
    await page.getByRole("heading", { name: /^Skills: \d+ served/ }).waitFor(WAIT);
    // A file that is not there leads back to its skill.
    await page.goto(`${server.base}/#/skill/${encodeURIComponent("first:pdf-invoices")}/file/gone.md`);
    await page.locator("main > h1", { hasText: "Not found" }).waitFor(WAIT);
    await page.getByRole("link", { name: "← Back to the skill" }).click();
    await page.locator("main > h1", { hasText: "pdf-invoices" }).waitFor(WAIT);
    // A path out of the skill is refused by the server: said so, with the same way back.
    await page.goto(`${server.base}/#/skill/${encodeURIComponent("first:pdf-invoices")}/file/..%2F..%2Fsecret.md`);
    await page.locator("main > h1", { hasText: "Not served" }).waitFor(WAIT);
    expect(await page.locator("main .notice").textContent()).toContain("../../secret.md");
    await page.getByRole("link", { name: "← Back to the skill" }).click();
    await page.locator("main > h1", { hasText: "pdf-invoices" }).waitFor(WAIT);
    await page.goto(`${server.base}/#/trees`);
    await page.locator("main > h1", { hasText: "Skill trees" }).waitFor(WAIT);
    expect(errors).toEqual([]);
    await page.close();
  });

  test("Back returns to where the reader was; links only to files of the skill that exist", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${server.base}/#/skill/${encodeURIComponent("first:long-guide")}`);
    const end = page.locator("#skill-body a", { hasText: "the end" });
    await end.waitFor(WAIT);
    // A file that does not exist and a `..` into another skill are text, not links that lead nowhere.
    expect(await page.locator("#skill-body a").allTextContents()).toEqual(["the end"]);
    expect(await page.locator("#skill-body").textContent()).toContain("Read the end, gone and other.");
    await end.scrollIntoViewIfNeeded();
    const place = await page.evaluate<number>("window.scrollY");
    expect(place).toBeGreaterThan(1000);
    await end.click();
    await page.locator("main > h1", { hasText: "docs/end.md" }).waitFor(WAIT);
    expect(await page.title()).toBe("docs/end.md · long-guide · SkillHub");
    expect(await page.evaluate<number>("window.scrollY")).toBe(0);
    await page.goBack();
    await eventually(() => page.evaluate<boolean>(`Math.abs(window.scrollY - ${place}) <= 1`));
    expect(await page.locator("main > h1").textContent()).toBe("long-guide");
    expect(errors).toEqual([]);
    await page.close();
  });

  test("a tree node's chain and children are links, one after another", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${server.base}/#/trees`);
    await page.locator("#skill-tree").waitFor(WAIT);
    const tree = await page.evaluate<{ tree: any }>('fetch("/ui/api/tree").then((r) => r.json())');
    const ui = tree.tree.children.find((c: any) => c.path === "ui/_index");
    await page.goto(`${server.base}/#/skill/${encodeURIComponent(ui.id)}`);
    const chain = page.locator("dd.chain");
    await chain.waitFor(WAIT);
    expect(await chain.textContent()).toBe("_root → ui/_index");
    expect(await chain.locator("a").allTextContents()).toEqual(["_root", "ui/_index"]);
    const children = page.locator("dt:text-is('Children') + dd");
    expect(await children.textContent()).toBe("ui/react");
    await children.getByRole("link", { name: "ui/react" }).click();
    await page.locator("main > h1", { hasText: "react" }).waitFor(WAIT);
    expect(errors).toEqual([]);
    await page.close();
  });

  test("Status says when the last git sync failed, and why", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${server.base}/#/status`);
    const card = page.locator("#git-repos li", { hasText: "team" });
    await card.locator(".sync-failed").waitFor(WAIT);
    expect(await card.textContent()).toMatch(/Copy at [0-9a-f]{7}, synced /);
    const failure = await card.locator(".sync-failed").textContent();
    expect(failure).toMatch(/^The last sync failed \(.+, GIT_UNREACHABLE\): cannot reach /);
    // The time is the reader's own, with the server's exact one on hover.
    expect(await card.locator(".sync-failed time").getAttribute("datetime")).toMatch(/^\d{4}-\d\d-\d\dT/);
    await page.screenshot({ path: join(SCREENSHOTS, "status-sync-failed.png"), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  test("at phone width: tables keep their words whole, charts their labels readable, tree nodes their line", async () => {
    const { page, errors } = await newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.base}/#/status`);
    await page.locator("main table td").first().waitFor(WAIT);
    // A word broken across lines has more than one box (paths alone may break anywhere, words at a hyphen).
    const broken = await page.evaluate<string[]>(`(() => {
      const out = [];
      for (const cell of document.querySelectorAll("main table th, main table td:not(.mono)")) {
        const text = cell.firstChild;
        if (!text || text.nodeType !== Node.TEXT_NODE) continue;
        for (const m of text.data.matchAll(/[^\\s-]+/g)) {
          const range = document.createRange();
          range.setStart(text, m.index);
          range.setEnd(text, m.index + m[0].length);
          if (range.getClientRects().length > 1) out.push(m[0]);
        }
      }
      return out;
    })()`);
    expect(broken).toEqual([]);
    await page.goto(`${server.base}/#/usage`);
    await page.locator("#chart-top svg.narrow").waitFor(WAIT);
    // Each visible chart's smallest label, in screen pixels: its font size times the chart's scale.
    const sizes = await page.evaluate<number[]>(`[...document.querySelectorAll("main svg.chart")]
      .filter((svg) => svg.getBoundingClientRect().width > 0)
      .map((svg) => Math.min(...[...svg.querySelectorAll("text")].map((t) =>
        parseFloat(getComputedStyle(t).fontSize) * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width)))`);
    expect(sizes.length).toBeGreaterThanOrEqual(2);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(11);
    await page.goto(`${server.base}/#/trees`);
    const summary = page.locator("#skill-tree summary", { has: page.getByRole("link", { name: "ui", exact: true }) });
    await summary.waitFor(WAIT);
    const [top, linkTop] = await Promise.all([
      summary.evaluate((el) => el.getBoundingClientRect().top),
      summary.getByRole("link", { name: "ui", exact: true }).evaluate((el) => el.getBoundingClientRect().top),
    ]);
    expect(linkTop - top).toBeLessThan(12);
    expect(errors).toEqual([]);
    await page.close();
  });

  test("a live update keeps the focus and the open sections where the reader left them", async () => {
    const { page, errors } = await newPage();
    const firstPoll = page.waitForResponse((r) => r.url().includes("/ui/api/generation"), WAIT);
    await page.goto(`${server.base}/#/skill/${encodeURIComponent("first:pdf-invoices")}`);
    await page.locator("#skill-body").waitFor(WAIT);
    await firstPoll;
    await page.getByText("Frontmatter", { exact: true }).click();
    await page.locator("#skill-body").getByRole("link", { name: "the reference" }).focus();
    // The analytics file grows (a flush): the view is drawn again with the new numbers.
    appendFileSync(
      world.analytics,
      `${JSON.stringify({ type: "skill_loaded", timestamp: "2026-11-22T13:00:00Z", server_id: "dev-test", data: { skill: "git-commits" } })}\n`,
    );
    await eventually(() => page.evaluate<boolean>('document.getElementById("foot-updated").textContent !== ""'));
    expect(await page.locator("details", { hasText: "Frontmatter" }).getAttribute("open")).toBe("");
    expect(await page.evaluate<string>("document.activeElement.textContent")).toBe("the reference");
    expect(errors).toEqual([]);
    await page.close();
  });

  test("a token-protected server asks once and keeps the token in this tab only", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${guarded.base}/`);
    await page.getByRole("heading", { name: "This server needs its token" }).waitFor(WAIT);
    await page.getByLabel("Server token").fill("wrong-token");
    await page.getByRole("button", { name: "Open" }).click();
    await page.getByText("The token entered was not accepted.").waitFor(WAIT);
    await page.getByLabel("Server token").fill(TOKEN);
    await page.getByRole("button", { name: "Open" }).click();
    await page.getByRole("heading", { name: /^Skills: \d+ served/ }).waitFor(WAIT);
    await page.reload();
    await page.getByRole("heading", { name: /^Skills: \d+ served/ }).waitFor(WAIT);
    const stored = await page.evaluate(
      '({ session: sessionStorage.getItem("skillhub-token"), local: localStorage.length, cookie: document.cookie })',
    );
    expect(stored).toEqual({ session: TOKEN, local: 0, cookie: "" });
    expect(errors).toEqual([]);
    await page.close();
  });

  test("the clients' token shows Usage and Status without their private parts; the admin token, entered on the page, shows them", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${guarded.base}/#/usage`);
    await page.getByLabel("Server token").fill(TOKEN);
    await page.getByRole("button", { name: "Open" }).click();
    const withheld = page.locator(".withheld");
    await withheld.waitFor(WAIT);
    expect(await withheld.textContent()).toContain("SKILLHUB_ADMIN_TOKEN");
    expect(await page.locator("main").textContent()).not.toContain("kubernetes helm chart");
    // The loads per skill stay.
    await page.locator("#chart-loads svg rect").first().waitFor(WAIT);
    await page.screenshot({ path: join(SCREENSHOTS, "usage-client.png"), fullPage: true });
    await page.goto(`${guarded.base}/#/status`);
    await page.getByRole("heading", { name: "Status" }).waitFor(WAIT);
    await withheld.waitFor(WAIT);
    expect(await page.locator("main").textContent()).not.toContain(world.first);
    expect(await page.locator("main").textContent()).toContain("<skills folder 'first'>");
    await page.getByRole("button", { name: "Enter the admin token" }).click();
    await page.getByLabel("Admin token").fill(ADMIN);
    await page.getByRole("button", { name: "Open" }).click();
    await page.locator("main", { hasText: world.first }).waitFor(WAIT);
    expect(await withheld.count()).toBe(0);
    await page.goto(`${guarded.base}/#/usage`);
    await page.locator("#chart-misses", { hasText: "kubernetes helm chart" }).waitFor(WAIT);
    expect(await page.evaluate<string>('sessionStorage.getItem("skillhub-token")')).toBe(ADMIN);
    expect(errors).toEqual([]);
    await page.close();
  });

  test("the clients' token: the list, a skill and its file show each skill's folder by its URI; their links still work", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${guarded.base}/`);
    await page.getByLabel("Server token").fill(TOKEN);
    await page.getByRole("button", { name: "Open" }).click();
    await page.getByRole("heading", { name: /^Skills: \d+ served/ }).waitFor(WAIT);
    const main = page.locator("main");
    expect(await main.textContent()).toContain("skill://pdf-invoices");
    expect(await main.textContent()).not.toContain(world.first);
    await main.getByRole("link", { name: "pdf-invoices", exact: true }).click();
    await page.locator("#skill-body strong", { hasText: "totals" }).waitFor(WAIT);
    expect(await main.textContent()).toContain("skill://pdf-invoices/SKILL.md");
    expect(await main.textContent()).not.toContain(world.first);
    await page.locator("#skill-body").getByRole("link", { name: "the reference" }).click();
    await page.locator("#file-body code", { hasText: "number" }).waitFor(WAIT);
    await page.getByRole("link", { name: "← Back to the skill" }).click();
    await page.locator("#skill-body strong", { hasText: "totals" }).waitFor(WAIT);
    expect(errors).toEqual([]);
    await page.close();
  });

  test("a page on a listed origin calls /mcp with the token and reads the answer; an unlisted one cannot", async () => {
    const { page, errors } = await newPage();
    const call = `async ([url, token]) => {
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: "Bearer " + token,
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {
            protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "page", version: "1" } } }),
        });
        return { status: response.status, session: Boolean(response.headers.get("mcp-session-id")),
          body: (await response.text()).includes('"skillhub"') };
      } catch (error) {
        return { failed: String(error) };
      }
    }`;
    await page.goto(`http://127.0.0.1:${otherSite?.port}/`);
    expect(await page.evaluate(`(${call})(${JSON.stringify([`${guarded.base}/mcp`, TOKEN])})`)).toEqual({
      status: 200,
      session: true,
      body: true,
    });
    // The same page under another name is another origin, not listed: the browser keeps the answer from it.
    await page.goto(`http://localhost:${otherSite?.port}/`);
    expect(await page.evaluate(`(${call})(${JSON.stringify([`${guarded.base}/mcp`, TOKEN])})`)).toEqual({
      failed: expect.stringContaining("Failed to fetch"),
    });
    expect(errors).toEqual([]);
    await page.close();
  });

  test("live update: a skill added on disk appears without a reload", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${server.base}/`);
    await page.getByRole("heading", { name: /^Skills: \d+ served/ }).waitFor(WAIT);
    writeSkill(world.first, "fresh-skill", { description: "Added while the page was open." });
    await page.getByRole("link", { name: "fresh-skill" }).waitFor(WAIT);
    expect(errors).toEqual([]);
    await page.close();
  });
});
