import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { tempDir, write } from "./fs.ts";

/** Environment for git in tests: no user or system config, fixed identity. */
export const GIT_ENV: Record<string, string | undefined> = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
};

/** Run git and return stdout; throws with stderr on failure. */
export function git(args: string[], cwd?: string): string {
  const proc = Bun.spawnSync(["git", ...args], { cwd, env: GIT_ENV, stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${proc.stderr.toString()}`);
  return proc.stdout.toString().trim();
}

/**
 * Make the folder `copy` a repository copy of `url` as a sync leaves one (a git repository whose origin is
 * `url`), its files committed: SkillHub serves a copy only when its origin is the configured repository.
 */
export function copyOf(copy: string, url: string): void {
  mkdirSync(copy, { recursive: true });
  git(["init", "--quiet"], copy);
  git(["remote", "add", "origin", url], copy);
  git(["add", "-A"], copy);
  git(["commit", "--quiet", "--allow-empty", "-m", "copy"], copy);
}

/** A SKILL.md text. */
export function skillText(name: string, description = `Helps with ${name}.`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nInstructions for ${name}.\n`;
}

export interface Remote {
  /** The bare repository folder. */
  bare: string;
  /** file:// URL of the bare repository. */
  url: string;
  /** A working clone used to author commits. */
  work: string;
  /** Write a file in the working clone (path relative to the repository root). */
  write(path: string, text: string): void;
  remove(path: string): void;
  /** Commit everything and push; returns the new commit hash. */
  push(message?: string): string;
}

/**
 * A bare repository named `<name>.git` with one commit on `branch` holding
 * `files`, plus a working clone to push more commits from.
 */
export function remoteRepo(name = "team-skills", files: Record<string, string> = {}, branch = "main"): Remote {
  const root = tempDir("skillhub-remote-");
  const bare = join(root, `${name}.git`);
  const work = join(root, "work");
  git(["init", "--quiet", "--bare", "-b", branch, bare]);
  mkdirSync(work);
  git(["init", "--quiet", "-b", branch], work);
  git(["remote", "add", "origin", bare], work);
  const remote: Remote = {
    bare,
    url: pathToFileURL(bare).href,
    work,
    write: (path, text) => void write(join(work, path), text),
    remove: (path) => rmSync(join(work, path), { recursive: true, force: true }),
    push: (message = "update") => {
      git(["add", "-A"], work);
      git(["commit", "--quiet", "--allow-empty", "-m", message], work);
      git(["push", "--quiet", "origin", branch], work);
      return git(["rev-parse", "HEAD"], work);
    },
  };
  for (const [path, text] of Object.entries(files)) remote.write(path, text);
  remote.push("initial");
  return remote;
}

/** A loopback port with nothing listening on it. */
export function closedPort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = server.port as number;
  server.stop(true);
  return port;
}

/** A self-signed certificate for 127.0.0.1, or undefined when openssl is missing. */
export function selfSignedCert(): { cert: string; key: string } | undefined {
  if (!Bun.which("openssl")) return undefined;
  const dir = tempDir("skillhub-tls-");
  const proc = Bun.spawnSync(
    [
      "openssl",
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      // curl and wget check an address against the certificate's alternative names only.
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ],
    { stdout: "ignore", stderr: "ignore" },
  );
  if (proc.exitCode !== 0) return undefined;
  return { cert: readFileSync(join(dir, "cert.pem"), "utf8"), key: readFileSync(join(dir, "key.pem"), "utf8") };
}

/** A fresh ed25519 key made with ssh-keygen in `dir`: { key (the private key's file), pub (its public line) }. */
export function sshKey(dir: string, name: string): { key: string; pub: string } {
  const key = join(dir, name);
  const proc = Bun.spawnSync(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", `${name}@example.com`, "-f", key]);
  if (proc.exitCode !== 0) throw new Error(`ssh-keygen failed: ${proc.stderr.toString()}`);
  return { key, pub: readFileSync(`${key}.pub`, "utf8").trim() };
}

/** Commit everything in the remote's working clone, SSH-signed with `key` (or unsigned), and push; the new commit. */
export function signedCommit(remote: Remote, message: string, key?: string): string {
  git(["add", "-A"], remote.work);
  const sign = key ? ["-c", "gpg.format=ssh", "-c", `user.signingkey=${key}`, "commit", "-S"] : ["commit"];
  git([...sign, "--quiet", "--allow-empty", "-m", message], remote.work);
  git(["push", "--quiet", "origin", "main"], remote.work);
  return git(["rev-parse", "HEAD"], remote.work);
}
