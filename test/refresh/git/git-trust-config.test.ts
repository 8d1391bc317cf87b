import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { binaryClientWith } from "../../helpers/binary.ts";
import { cleanupTemp, tempDir } from "../../helpers/fs.ts";
import { GIT_ENV, remoteRepo, signedCommit, skillText, sshKey } from "../../helpers/git.ts";
import { eventually } from "../../helpers/wait.ts";

afterAll(cleanupTemp);

/** A loopback analytics endpoint: the text of every body it was sent. */
function endpoint() {
  const bodies: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (request) => {
      bodies.push(await request.text());
      return new Response("ok");
    },
  });
  return { url: `http://127.0.0.1:${server.port}/events`, bodies, stop: () => server.stop(true) };
}

/** A search over stdio from the binary, then its end (which sends the queued events). Returns its log. */
async function searchOnce(home: string, env: Record<string, string>, waitFor?: string): Promise<string> {
  const s = await binaryClientWith([], home, env);
  try {
    // The copies are checked at start; a verified one's config.yaml is then applied (logged).
    if (waitFor) await eventually(() => s.log().includes(waitFor));
    await s.client.callTool({ name: "search_skills", arguments: { query: "quarterly payroll figures" } });
  } finally {
    await s.client.close();
  }
  return s.log();
}

describe("trust.allowed_signers: a repository's config.yaml applies only from a verified copy", () => {
  test("an unsigned copy's analytics.endpoint gets nothing; a signed copy's gets the events", async () => {
    const events = endpoint();
    try {
      const keys = tempDir("skillhub-keys-");
      const trusted = sshKey(keys, "trusted");
      const signers = join(keys, "allowed_signers");
      writeFileSync(signers, `trusted@example.com ${trusted.pub}\n`);
      const config = `analytics:\n  endpoint: ${events.url}\n`;
      const base = {
        GIT_CONFIG_GLOBAL: GIT_ENV.GIT_CONFIG_GLOBAL as string,
        GIT_CONFIG_NOSYSTEM: "1",
        SKILLHUB_ALLOWED_SIGNERS: signers,
      };

      // Unsigned, cloned before signing was turned on: the copy is not served, nor is its config.yaml read.
      const unsigned = remoteRepo("team", { "skills/notes/SKILL.md": skillText("notes"), "config.yaml": config });
      const home = tempDir("skillhub-home-");
      const env = { ...base, SKILLS_REPO: unsigned.url };
      const first = await binaryClientWith([], home, { ...env, SKILLHUB_ALLOWED_SIGNERS: "" });
      await first.client.callTool({ name: "list_skills", arguments: {} });
      await first.client.close();
      events.bodies.length = 0;
      const log = await searchOnce(home, env);
      expect(log).toContain("is not served");
      expect(log).not.toContain("from the repositories' config.yaml applied");
      expect(events.bodies.join("\n")).not.toContain("payroll");

      // Signed by a listed key: verified at start, then its config.yaml applies.
      const signed = remoteRepo("team", { "skills/notes/SKILL.md": skillText("notes"), "config.yaml": config });
      signedCommit(signed, "signed", trusted.key);
      const applied = await searchOnce(
        tempDir("skillhub-home-"),
        { ...base, SKILLS_REPO: signed.url },
        "analytics from the repositories' config.yaml applied",
      );
      expect(applied).not.toContain("is not served");
      expect(events.bodies.join("\n")).toContain("payroll");
    } finally {
      events.stop();
    }
  });
});
