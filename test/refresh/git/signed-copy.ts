import { expect } from "bun:test";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../helpers/fs.ts";
import { GIT_ENV, type Remote, remoteRepo, signedCommit, skillText, sshKey } from "../../helpers/git.ts";
import { cli, type Machine, machine } from "../../lock/cli.ts";

/** Copies of signed team repositories, and what tampering with them looks like (trust.allowed_signers). */

/**
 * A team repository whose tip, with alpha's SKILL.md saying `description` (and whatever `prepare` adds),
 * is signed by a key the signers file lists, synced into a new machine: its environment, its copy, the
 * remote and the key that signs for it.
 */
export async function signedCopy(description: string, prepare?: (remote: Remote) => void) {
  const keys = tempDir("skillhub-keys-");
  const trusted = sshKey(keys, "trusted");
  const signers = join(keys, "allowed_signers");
  writeFileSync(signers, `trusted@example.com ${trusted.pub}\n`);
  const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
  remote.write("skills/alpha/SKILL.md", skillText("alpha", description));
  prepare?.(remote);
  signedCommit(remote, "signed", trusted.key);
  const m = machine();
  const env = { SKILLS_REPO: remote.url, SKILLHUB_ALLOWED_SIGNERS: signers };
  expect((await cli(m, ["sync"], env)).code).toBe(0);
  const repos = join(m.home, ".skillhub", "repos");
  const copy = join(repos, readdirSync(repos).filter((n) => !n.startsWith("."))[0] as string);
  return { m, env, copy, remote, trusted };
}

/** What git's own status says of the copy against a scratch index read from its commit: "" for nothing. */
export function gitStatusFromCommit(copy: string): string {
  const scratch = { ...GIT_ENV, GIT_INDEX_FILE: join(tempDir(), "index") };
  expect(Bun.spawnSync(["git", "read-tree", "HEAD"], { cwd: copy, env: scratch }).exitCode).toBe(0);
  const status = ["status", "--porcelain", "--ignored", "--untracked-files=all"];
  return Bun.spawnSync(["git", ...status], { cwd: copy, env: scratch }).stdout.toString();
}

/**
 * The tampered copy serves nothing (neither `planted` nor `signed` listed), doctor says `why`; a sync
 * restores it: `signed` listed again, `planted` not.
 */
export async function refusedThenRestored(
  m: Machine,
  env: Record<string, string>,
  why: string,
  signed: string,
  planted: string,
): Promise<void> {
  const listed = (await cli(m, ["list", "--json"], env)).out;
  expect(listed).not.toContain(planted);
  expect(listed).not.toContain(signed);
  const doctor = JSON.parse((await cli(m, ["doctor", "--json"], env)).out);
  expect(doctor.repos[0].not_served).toContain(why);
  expect((await cli(m, ["sync"], env)).code).toBe(0);
  const again = (await cli(m, ["list", "--json"], env)).out;
  expect(again).toContain(signed);
  expect(again).not.toContain(planted);
}

/**
 * Every object of the copy made a loose file: packed objects are found before loose ones, so a loose
 * file written over one is then the one git reads, as anyone who can write the copy can arrange.
 */
export function unpackObjects(copy: string): void {
  const packs = join(copy, ".git", "objects", "pack");
  for (const name of readdirSync(packs).filter((n) => n.endsWith(".pack"))) {
    const pack = readFileSync(join(packs, name));
    for (const ext of [".pack", ".idx", ".rev"]) rmSync(join(packs, name.replace(/\.pack$/, ext)), { force: true });
    const unpacked = Bun.spawnSync(["git", "unpack-objects", "-q"], { cwd: copy, env: GIT_ENV, stdin: pack });
    expect(unpacked.exitCode).toBe(0);
  }
}

/** Write over the loose object file of `signed` the object `forged` (both in the copy's store). */
export function replaceObject(copy: string, signed: string, forged: string): void {
  const file = (id: string) => join(copy, ".git", "objects", id.slice(0, 2), id.slice(2));
  rmSync(file(signed), { force: true });
  writeFileSync(file(signed), readFileSync(file(forged)));
}
