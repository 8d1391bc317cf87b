import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { cleanupTemp, writeSkill } from "../helpers/fs.ts";
import { type HttpBinary, startHttpBinary } from "../helpers/http-binary.ts";
import { HANG_MS } from "../helpers/wait.ts";
import { freshBinary, hasChromium, launchBrowser, SCREENSHOTS } from "./browser.ts";
import { HOSTILE_FILE, HOSTILE_NAME, HOSTILE_PAGES, uiWorld } from "./world.ts";

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
    const bin = freshBinary();
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: world.home,
      SKILLHUB_HOME: join(world.home, ".skillhub"),
      SKILLHUB_ANALYTICS_FILE: world.analytics,
      SKILLHUB_RESCAN_SECONDS: "1",
    };
    const dirs = ["--skills-dir", world.first, "--skills-dir", world.second, "--skills-dir", world.trees];
    otherSite = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => new Response("<!doctype html><title>tools</title>", { headers: { "content-type": "text/html" } }),
    });
    const guardedEnv = {
      ...env,
      SKILLHUB_HTTP_TOKEN: TOKEN,
      SKILLHUB_ALLOWED_ORIGINS: `http://127.0.0.1:${otherSite.port}`,
    };
    [server, guarded] = await Promise.all([
      startHttpBinary(bin, dirs, { env, cwd: world.home, timeoutMs: 30_000 }),
      startHttpBinary(bin, dirs, { env: guardedEnv, cwd: world.home, timeoutMs: 30_000 }),
    ]);
    ({ context, close: closeBrowser } = await launchBrowser());
  });

  afterAll(async () => {
    await closeBrowser?.();
    await Promise.all([server?.stop(), guarded?.stop(), otherSite?.stop(true)]);
    cleanupTemp();
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
    await first.getByRole("link", { name: "pdf-invoices" }).click();
    await page.locator("#skill-body strong", { hasText: "totals" }).waitFor(WAIT);
    expect(await page.locator("main > h1").textContent()).toBe("pdf-invoices");
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
    await page.locator("#chart-loads svg rect").first().waitFor(WAIT);
    expect(await page.locator("#chart-loads svg rect").count()).toBeGreaterThanOrEqual(6);
    expect(await page.locator("#chart-top svg").getAttribute("aria-label")).toBe("Most used skills");
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
    expect(await page.locator("#skill-body h1").textContent()).toBe("Hostile <script>window.__pwned = 1</script>");
    expect(await page.locator("#skill-body").textContent()).toContain('<img src="x" onerror="window.__pwned = 2">');
    expect(await page.locator("#skill-body script, #skill-body img, #skill-body svg, #skill-body iframe").count()).toBe(
      0,
    );
    expect(await page.locator('#skill-body a[href^="javascript"]').count()).toBe(0);
    await page.getByRole("link", { name: HOSTILE_FILE }).click();
    await page.locator("main > h1", { hasText: HOSTILE_FILE }).waitFor(WAIT);
    expect(await page.locator("#file-body").textContent()).toContain("<script>window.__pwned = 8</script>");
    await page.screenshot({ path: join(SCREENSHOTS, "hostile.png"), fullPage: true });
    // HTML and SVG files are shown (as text, or described), never loaded as pages or images of the hub.
    const skill = encodeURIComponent(`first:${HOSTILE_NAME}`);
    await page.goto(`${server.base}/#/skill/${skill}/file/${HOSTILE_PAGES.html}`);
    await page.locator("main > h1", { hasText: HOSTILE_PAGES.html }).waitFor(WAIT);
    expect(await page.locator("main").textContent()).toContain("<script>window.__pwned = 9</script>");
    await page.goto(`${server.base}/#/skill/${skill}/file/${HOSTILE_PAGES.svg}`);
    await page.locator("main > h1", { hasText: HOSTILE_PAGES.svg }).waitFor(WAIT);
    expect(await page.locator("main").textContent()).toContain("image/svg+xml");
    expect(await page.locator("main svg, main img, main iframe, main object, main embed").count()).toBe(0);
    expect(await page.evaluate<string>("typeof window.__pwned")).toBe("undefined");
    expect(errors).toEqual([]);
    await page.close();
  });

  test("a malformed escape in the address names the skill it cannot find, and the page still works", async () => {
    const { page, errors } = await newPage();
    await page.goto(`${server.base}/#/skill/%E0`);
    await page.locator("main > h1", { hasText: "Something went wrong" }).waitFor(WAIT);
    expect(await page.locator("main .error-box").textContent()).toContain("%E0");
    await page.goto(`${server.base}/#/trees`);
    await page.locator("main > h1", { hasText: "Skill trees" }).waitFor(WAIT);
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
