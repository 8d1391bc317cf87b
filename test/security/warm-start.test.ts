import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { GatedScanner } from "../helpers/gated-scanner.ts";
import { GIT_ENV, remoteRepo, signedCommit, skillText, sshKey } from "../helpers/git.ts";
import { testHub } from "../helpers/hub.ts";
import { stdioClient } from "../helpers/stdio-client.ts";
import { eventually, HANG_MS } from "../helpers/wait.ts";

afterAll(cleanupTemp);

const SIGNED = "Release notes the team signed.";

/** A team repository whose tip is signed by a fresh key, an allowed-signers file listing it, and a local skills folder. */
function signedSetup() {
  const keys = tempDir("skillhub-keys-");
  const trusted = sshKey(keys, "trusted");
  const signers = join(keys, "allowed_signers");
  writeFileSync(signers, `trusted@example.com ${trusted.pub}\n`);
  const remote = remoteRepo("team", { "skills/release-notes/SKILL.md": skillText("release-notes") });
  remote.write("skills/release-notes/SKILL.md", skillText("release-notes", SIGNED));
  signedCommit(remote, "signed", trusted.key);
  const local = tempDir("skillhub-local-");
  writeSkill(local, "local-notes", { description: "Notes kept on this machine." });
  return { signers, remote, local, home: tempDir("skillhub-home-") };
}

/** A stdio session of a server with the team repository, signed mode on; `scanner` holds its scans. */
async function session(setup: ReturnType<typeof signedSetup>, scanner?: GatedScanner) {
  const { hub, logger } = testHub({
    home: setup.home,
    flags: { "skills-dir": [setup.local] },
    env: { SKILLS_REPO: setup.remote.url, SKILLHUB_ALLOWED_SIGNERS: setup.signers },
    hub: {
      listingWaitMs: HANG_MS,
      // A held scan: listings are answered from the snapshot at once.
      snapshotListingWaitMs: 0,
      git: { runner: { env: GIT_ENV }, intervalMs: 0 },
      ...(scanner ? { scanner } : {}),
    },
  });
  return { hub, logger, ...(await stdioClient(hub)) };
}

const toolsText = async (c: Awaited<ReturnType<typeof session>>) => JSON.stringify((await c.client.listTools()).tools);

describe("a warm start lists nothing of a signed repository before its copy is verified again", () => {
  for (const [what, between] of [
    // The operator took the signer's key off the list.
    [
      "the signer's key removed from allowed_signers",
      (s: ReturnType<typeof signedSetup>) => writeFileSync(s.signers, ""),
    ],
    // Someone with write access to the copy changed a skill's words on disk, the remote out of reach (else
    // the start-up sync would put the signed files back).
    [
      "the copy's SKILL.md changed on disk",
      (s: ReturnType<typeof signedSetup>) => {
        rmSync(s.remote.bare, { recursive: true, force: true });
        const repos = join(s.home, ".skillhub", "repos");
        const copy = join(repos, readdirSync(repos).filter((n) => !n.startsWith("."))[0] as string);
        write(join(copy, "skills", "release-notes", "SKILL.md"), skillText("release-notes", "Planted on disk."));
      },
    ],
  ] as const) {
    test(`${what} between two runs: the snapshot's copy of its skills is not listed`, async () => {
      const setup = signedSetup();
      // First run: the copy is verified and served; its catalog, with the repository's skill, is kept.
      const first = await session(setup);
      await first.client.callTool({ name: "list_skills", arguments: {} });
      expect(await toolsText(first)).toContain(SIGNED);
      await first.close();
      const index = join(setup.home, ".skillhub", "index");
      const [kept] = readdirSync(index).filter((f) => f.startsWith("catalog-"));
      expect(readFileSync(join(index, kept as string), "utf8")).toContain(SIGNED);

      between(setup);

      // Second run: everything a client sees before the scan ends comes from the snapshot.
      const scanner = new GatedScanner();
      const second = await session(setup, scanner);
      // The snapshot is read right after initialize is answered.
      await eventually(() => !second.hub.catalogPending);
      const instructions = second.client.getInstructions() ?? "";
      const listed = await toolsText(second);
      expect(scanner.scans).toBeLessThanOrEqual(1);
      expect(scanner.released).toBe(false);
      // The snapshot answered (the local skill is listed from it) ...
      expect(listed).toContain("local-notes");
      // ... without a word of the repository's copy, which has not been checked yet.
      expect(listed).not.toContain(SIGNED);
      expect(instructions).not.toContain(SIGNED);
      expect(instructions).not.toContain("release-notes");
      const prompts = await second.client.listPrompts();
      expect(prompts.prompts.map((p) => p.name)).toEqual(["local-notes"]);
      scanner.release();
      await second.hub.ready;
      expect(second.logger.lines.join("\n")).toContain("is not served");
      const after = await toolsText(second);
      expect(after).not.toContain(SIGNED);
      expect(after).not.toContain("Planted on disk.");
      await second.close();
    });
  }

  test("a copy still verified is listed once checked: the scan brings its skills (list_changed)", async () => {
    const setup = signedSetup();
    const first = await session(setup);
    await first.client.callTool({ name: "list_skills", arguments: {} });
    await first.close();
    const scanner = new GatedScanner();
    const second = await session(setup, scanner);
    await eventually(() => !second.hub.catalogPending);
    expect(await toolsText(second)).not.toContain(SIGNED);
    scanner.release();
    await second.listChanged();
    expect(await toolsText(second)).toContain(SIGNED);
    await second.close();
  });
});
