import { afterAll, describe, expect, test } from "bun:test";
import { hostileMarkdown } from "../../bench/fuzz/hostile-markdown.ts";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { startHttpBinary } from "../helpers/http-binary.ts";

afterAll(cleanupTemp);

describe("the compiled binary renders long pages in its Markdown worker", () => {
  test("a 512 KB hostile body is rendered (not the plain-text fallback) while /healthz answers first", async () => {
    const home = tempDir("skillhub-e2e-home-");
    const skills = tempDir("skillhub-e2e-skills-");
    const body = hostileMarkdown(512 * 1024).find((h) => h.name === "nested-list-markers-continued")?.text;
    writeSkill(skills, "hostile", { description: "Nested list markers.", body });
    const server = await startHttpBinary(binary(), ["--skills-dir", skills], {
      env: { PATH: process.env.PATH ?? "", HOME: home, SKILLHUB_WATCH: "0" },
      cwd: home,
    });
    try {
      const order: string[] = [];
      const page = fetch(`${server.base}/ui/api/skill?id=hostile`).then(async (r) => {
        const json = (await r.json()) as { html?: string; notice?: string };
        order.push("page");
        return json;
      });
      const health = fetch(`${server.base}/healthz`).then((r) => {
        order.push("healthz");
        return r.status;
      });
      const [status, detail] = await Promise.all([health, page]);
      expect(status).toBe(200);
      expect(detail.notice).toBeUndefined();
      expect(detail.html).toStartWith("<ul>\n<li>");
      expect(order).toEqual(["healthz", "page"]);
    } finally {
      await server.stop();
    }
    expect(server.stderr()).not.toContain("unexpected error");
  });
});
