/**
 * trust.allowed_signers against the binary: an OpenPGP-signed commit whose key the user's keyring holds
 * (git verify-commit would accept it), a copy cloned before the setting was made, and the
 * allowed-signers file as a FIFO. Each must be refused or not served, and every command must end.
 * Needs git, ssh-keygen and gpg; without gpg the OpenPGP case is reported as not run.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { plantHostile, runCommand } from "./named-file-cases.ts";
import { must, type Suite } from "./suite.ts";
import type { FuzzWorld } from "./world.ts";

/** git for the fixtures: no user or system configuration, a fixed identity. */
function gitEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Fuzz",
    GIT_AUTHOR_EMAIL: "fuzz@example.com",
    GIT_COMMITTER_NAME: "Fuzz",
    GIT_COMMITTER_EMAIL: "fuzz@example.com",
    ...extra,
  };
}

function git(args: string[], cwd: string, env = gitEnv()): string {
  const proc = Bun.spawnSync(["git", ...args], { cwd, env, stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${proc.stderr.toString()}`);
  return proc.stdout.toString().trim();
}

/** A bare repository with one commit (skills/alpha), a working clone to push from, and its file:// URL. */
function remote(root: string, signed?: { env: Record<string, string>; args: string[] }) {
  const bare = join(root, "team.git");
  const work = join(root, "work");
  mkdirSync(work, { recursive: true });
  git(["init", "--quiet", "--bare", "-b", "main", bare], root);
  git(["init", "--quiet", "-b", "main"], work);
  git(["remote", "add", "origin", bare], work);
  mkdirSync(join(work, "skills", "alpha"), { recursive: true });
  writeFileSync(
    join(work, "skills", "alpha", "SKILL.md"),
    "---\nname: alpha\ndescription: TRUST-CANARY skill.\n---\nbody\n",
  );
  git(["add", "-A"], work);
  git([...(signed?.args ?? []), "commit", "--quiet", ...(signed ? ["-S"] : []), "-m", "alpha"], work, signed?.env);
  git(["push", "--quiet", "origin", "main"], work);
  return pathToFileURL(bare).href;
}

/** An SSH key and an allowed-signers file listing it. */
function signers(root: string): string {
  const key = join(root, "trusted");
  Bun.spawnSync(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "trusted@example.com", "-f", key]);
  const file = join(root, "allowed_signers");
  writeFileSync(file, `trusted@example.com ${readFileSync(`${key}.pub`, "utf8").trim()}\n`);
  return file;
}

export async function trustCases(suite: Suite, binary: string, world: FuzzWorld, answers: string[]): Promise<void> {
  const base = join(world.root, "trust");
  const envFor = (name: string, extra: Record<string, string>) => {
    const home = join(base, name, "home");
    mkdirSync(home, { recursive: true });
    return { ...world.env, ...gitEnv(), HOME: home, SKILLHUB_WATCH: "0", ...extra };
  };
  const haveGpg = Bun.which("gpg") !== null;
  await suite.check(
    "trust: an OpenPGP-signed commit the user's keyring trusts is refused (GIT_SIGNATURE_INVALID), nothing served",
    async () => {
      must(haveGpg, "gpg is not on PATH (apt-get install gnupg): the case cannot be made");
      const root = join(base, "pgp");
      const gnupg = join(root, "gnupg");
      mkdirSync(gnupg, { recursive: true, mode: 0o700 });
      const gpgEnv = gitEnv({ GNUPGHOME: gnupg });
      const made = Bun.spawnSync(
        ["gpg", "--batch", "--passphrase", "", "--quick-gen-key", "Fuzz <pgp@example.com>", "ed25519", "sign", "never"],
        { env: gpgEnv, stderr: "pipe" },
      );
      must(made.exitCode === 0, `gpg --quick-gen-key failed: ${made.stderr.toString()}`);
      try {
        const url = remote(root, {
          env: gpgEnv,
          args: ["-c", "gpg.format=openpgp", "-c", "user.signingkey=pgp@example.com"],
        });
        const env = envFor("pgp", { SKILLS_REPO: url, SKILLHUB_ALLOWED_SIGNERS: signers(root), GNUPGHOME: gnupg });
        const sync = await runCommand(binary, ["sync", "--json"], env, 60_000);
        answers.push(sync.stdout, sync.stderr);
        must(sync.code === 1, `sync exit ${sync.code}`);
        const error = JSON.parse(sync.stdout).repos[0].error;
        must(error?.code === "GIT_SIGNATURE_INVALID", `error ${JSON.stringify(error)}`);
        must(String(error.message).includes("OpenPGP"), "the refusal does not name the OpenPGP signature");
        const list = await runCommand(binary, ["list", "--json"], env);
        answers.push(list.stdout, list.stderr);
        return !list.stdout.includes("TRUST-CANARY");
      } finally {
        Bun.spawnSync(["gpgconf", "--kill", "gpg-agent"], { env: gpgEnv });
      }
    },
  );
  await suite.check("trust: a copy cloned before allowed_signers was set is not served", async () => {
    const root = join(base, "before");
    mkdirSync(root, { recursive: true });
    const url = remote(root);
    const env = envFor("before", { SKILLS_REPO: url });
    const first = await runCommand(binary, ["sync"], env, 60_000);
    must(first.code === 0, `first sync exit ${first.code}: ${first.stderr}`);
    const list = await runCommand(binary, ["list", "--json"], { ...env, SKILLHUB_ALLOWED_SIGNERS: signers(root) });
    answers.push(list.stdout, list.stderr);
    must(list.code !== "hang", "list hung");
    return !list.stdout.includes("TRUST-CANARY");
  });
  await suite.check("trust: the allowed-signers file as a FIFO: sync refuses at once", async () => {
    const root = join(base, "fifo");
    mkdirSync(root, { recursive: true });
    const url = remote(root);
    const fifo = join(root, "allowed_signers");
    plantHostile(fifo, "fifo");
    const sync = await runCommand(
      binary,
      ["sync", "--json"],
      envFor("fifo", { SKILLS_REPO: url, SKILLHUB_ALLOWED_SIGNERS: fifo }),
    );
    answers.push(sync.stdout, sync.stderr);
    must(sync.code === 1, `sync exit ${sync.code}`);
    return JSON.parse(sync.stdout).repos[0].error?.code === "GIT_SIGNATURE_INVALID";
  });
}
