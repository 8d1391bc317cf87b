import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { benignMarkdown, hostileMarkdown } from "../../bench/fuzz/hostile-markdown.ts";
import { startHttpServer } from "../../src/transports/http.ts";
import { renderMarkdown } from "../../src/ui/markdown.ts";
import { pageLinkPolicy } from "../../src/ui/markdown-links.ts";
import { IN_PLACE_CHARS, renderPage } from "../../src/ui/markdown-page.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { testHub } from "../helpers/hub.ts";
import { timed } from "../helpers/timed.ts";

afterAll(cleanupTemp);

describe("the page's renderer is linear on hostile Markdown", () => {
  // Ordering beside a floor, not a time limit: each 512 KB hostile page renders before benign prose 32
  // times its size does. The rule-line test rescanned long lines of list markers at every level of
  // nesting: 512 KB took seconds (44-48 s on the machine where it was found), the server stalled meanwhile.
  // The floor is measured beside each family (the best of its runs so far), so a busy machine slows both.
  test("nested list markers, block quotes and rule-like lines: 512 KB renders before 16 MB of prose", () => {
    const prose = benignMarkdown(16 * 1024 * 1024);
    let floor = timed(() => renderMarkdown(prose), 2);
    const families = [
      "nested-list-markers",
      "nested-list-markers-continued",
      "nested-list-markers-blank",
      "plus-markers",
      "dash-pairs",
      "rule-like",
      "nested-quotes",
      "quoted-lists",
      "listed-quotes",
    ];
    for (const { name, text } of hostileMarkdown(512 * 1024).filter((h) => families.includes(h.name))) {
      const ms = timed(() => renderMarkdown(text), 3);
      floor = Math.min(
        floor,
        timed(() => renderMarkdown(prose), 1),
      );
      expect({ name, beforeFloor: ms < floor }).toEqual({ name, beforeFloor: true });
    }
  }, 120_000);

  test("every family renders to escaped text or markup this renderer writes", () => {
    for (const { name, text } of hostileMarkdown(32 * 1024)) {
      const html = renderMarkdown(text);
      expect({ name, script: html.includes("<script") }).toEqual({ name, script: false });
      expect(html.length).toBeGreaterThan(0);
    }
    expect(benignMarkdown(100)).toHaveLength(100);
  });
});

describe("renderPage: a long page is rendered off the server's thread, within a budget", () => {
  test("short pages in place, long ones in a worker: the same HTML, links included", async () => {
    const links = { skillId: "dir1:pdf", dir: "docs/" };
    const short = "# Title\n\nSee [ref](ref.md).";
    expect(await renderPage(short, links)).toEqual({ html: renderMarkdown(short, pageLinkPolicy(links)) });
    const long = `${"Some **bold** text and [a link](a.md).\n\n".repeat(1000)}`;
    expect(long.length).toBeGreaterThan(IN_PLACE_CHARS);
    expect(await renderPage(long, links)).toEqual({ html: renderMarkdown(long, pageLinkPolicy(links)) });
    expect((await renderPage(long, links)).html).toContain('href="#/skill/dir1%3Apdf/file/docs/a.md"');
  });

  test("over its budget the render is ended and the page is plain escaped text, saying why", async () => {
    // A renderer that never answers: only the budget can end it.
    const script = write(join(tempDir("skillhub-render-"), "stuck.ts"), "self.onmessage = () => { for (;;) {} };\n");
    let fire: (() => void) | undefined;
    const pending = renderPage(`<script>x</script>\n${"a ".repeat(20_000)}`, undefined, {
      script,
      timer: (f) => {
        fire = f;
        return () => undefined;
      },
    });
    for (let i = 0; i < 200 && !fire; i++) await Bun.sleep(5);
    fire?.();
    const page = await pending;
    expect(page.plain).toBe("it took more than 10 s to render");
    expect(page.html).toStartWith('<pre class="plain">&lt;script&gt;x&lt;/script&gt;');
  });

  test("a renderer that fails gives the plain page too", async () => {
    const script = write(join(tempDir("skillhub-render-"), "throws.ts"), "throw new Error('broken renderer');\n");
    const page = await renderPage("x".repeat(IN_PLACE_CHARS + 1), undefined, { script });
    expect(page.plain).toStartWith("the renderer");
    expect(page.html).toStartWith('<pre class="plain">xxx');
  });
});

describe("a hostile page never holds the server", () => {
  test("/healthz is answered before a huge hostile page being rendered at the same time", async () => {
    const home = tempDir("skillhub-render-home-");
    const skills = tempDir("skillhub-render-skills-");
    const hostile = hostileMarkdown(512 * 1024).find((h) => h.name === "nested-list-markers-continued")?.text;
    writeSkill(skills, "hostile", { description: "Nested list markers.", body: hostile });
    const { hub } = testHub({ home, flags: { "skills-dir": [skills] }, hub: { acceptRoots: false } });
    void hub.start();
    await hub.ready;
    const server = startHttpServer(hub, { port: 0 });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const order: string[] = [];
      const page = fetch(`${base}/ui/api/skill?id=hostile`).then(async (r) => {
        const body = (await r.json()) as { html?: string };
        order.push("page");
        return body;
      });
      const health = fetch(`${base}/healthz`).then(async (r) => {
        order.push("healthz");
        return r.status;
      });
      const [status, body] = await Promise.all([health, page]);
      expect(status).toBe(200);
      expect(body.html).toStartWith("<ul>");
      expect(order).toEqual(["healthz", "page"]);
    } finally {
      await server.stop();
      hub.close();
    }
  });
});
