import { afterAll, describe, expect, test } from "bun:test";
import { createHttpHandler } from "../../src/transports/http-handler.ts";
import { httpClient } from "../helpers/clients.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { GatedScanner } from "../helpers/gated-scanner.ts";
import { testHub } from "../helpers/hub.ts";

afterAll(cleanupTemp);

// A 2026-07-28 client over HTTP is served by a server made for each request, which can send no
// list_changed of its own: its tools/list waits for the first scan, however long, rather than list
// the tools with the skills still being read, as a connection that hears list_changed may.

describe("a shared server's first scan", () => {
  test("a stateless tools/list waits for it and names the skills", async () => {
    const skills = tempDir("skillhub-http-first-");
    writeSkill(skills, "invoice-parser", { description: "Parse invoices into totals" });
    const scanner = new GatedScanner();
    const { hub } = testHub({
      flags: { "skills-dir": [skills] },
      hub: { acceptRoots: false, scanner, listingWaitMs: 0 },
    });
    const handler = createHttpHandler(hub, { host: "127.0.0.1", version: "test" });
    void hub.start();
    const client = await httpClient(handler, "2026-07-28");
    // The scan is released once the listing asks for it (the request's server is then waiting, or not).
    const ready = hub.ready;
    let asked!: () => void;
    const listingAsked = new Promise<void>((resolve) => (asked = resolve));
    Object.defineProperty(hub, "ready", {
      get: () => {
        asked();
        return ready;
      },
    });
    const listing = client.listTools().then((listed) => ({ listed, afterRelease: scanner.released }));
    await listingAsked;
    // A timer set now fires after any the listing set while asking (listingWaitMs is 0): had it not
    // waited for the scan, it would have answered before the release.
    await new Promise((resolve) => setTimeout(resolve, 1));
    scanner.release();
    const { listed, afterRelease } = await listing;
    expect(afterRelease).toBe(true);
    const skill = listed.tools.find((t) => t.name === "skill")?.description ?? "";
    expect(skill).toContain("<name>invoice-parser</name>");
    expect(skill).not.toContain("still reading");
    await client.close();
    await handler.close();
    hub.close();
  });
});
