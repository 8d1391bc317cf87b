import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createHttpHandler } from "../../src/transports/http-handler.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { pageFile } from "../helpers/http.ts";
import { testHub } from "../helpers/hub.ts";

afterAll(cleanupTemp);

describe("the page's file view serves a skill's own files only", () => {
  test("never version-control metadata (a remote's token in .git/config) nor a nested skill's file", async () => {
    const home = tempDir("skillhub-home-");
    const skills = tempDir("skillhub-skills-");
    writeSkill(skills, "pdf", { description: "Fills PDF forms." });
    write(join(skills, "pdf", "forms.md"), "# Forms\n");
    write(
      join(skills, "pdf", ".git", "config"),
      '[remote "origin"]\n\turl = https://x-access-token:ghp_CANARY@github.com/acme/pdf.git\n',
    );
    writeSkill(join(skills, "pdf"), "inner", { description: "A skill of its own." });
    write(join(skills, "pdf", "inner", "notes.txt"), "INNER-CANARY\n");
    const { hub } = testHub({ home, flags: { "skills-dir": [skills] }, hub: { acceptRoots: false } });
    const handler = createHttpHandler(hub, { host: "127.0.0.1", version: "test" });
    void hub.start();
    await hub.ready;
    try {
      const get = pageFile(handler);
      const id = hub.catalog.get("pdf")?.id as string;
      expect(((await (await get(id, "forms.md")).json()) as { ok: boolean }).ok).toBe(true);
      for (const path of [".git/config", "inner/notes.txt", "inner/SKILL.md"]) {
        const response = await get(id, path);
        const text = await response.text();
        expect(response.status).toBe(403);
        expect(text).toContain("PATH_OUTSIDE_SKILL");
        expect(text).not.toContain("CANARY");
      }
      // The nested skill's file is served as that skill's.
      const inner = await get(hub.catalog.get("inner")?.id as string, "notes.txt");
      expect(await inner.text()).toContain("INNER-CANARY");
    } finally {
      await hub.close();
    }
  });
});
