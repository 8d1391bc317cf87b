import { existsSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { readNamedFile } from "../../util/named-file.ts";
import { copySettingsProblem } from "./git-copy-guard.ts";
import { GitError, gitMessage } from "./git-errors.ts";
import type { GitRunner } from "./git-runner.ts";
import type { RepoTarget } from "./git-target.ts";

/**
 * trust.allowed_signers: a commit is served only when it carries an SSH
 * signature by a key of that file, and a copy on disk only when its checked-out
 * commit is such a commit and its files are exactly that commit's.
 *
 * Security: `git verify-commit` picks the verifier from the signature itself,
 * whatever gpg.format says: an OpenPGP signature goes to gpg and an X.509 one
 * to gpgsm, which accept any key in the user's keyring. So the signature is
 * read from the commit first and anything but an SSH signature is refused;
 * and the verification runs with gpg and gpgsm replaced by programs that do
 * not exist and ssh-keygen as the SSH verifier, so no other verifier is asked.
 */

/** What an SSH signature in a commit starts with (`ssh-keygen -Y sign`'s armour). */
const SSH_ARMOUR = "-----BEGIN SSH SIGNATURE-----";

/** Largest allowed-signers file accepted (a team's keys fit in a few kilobytes). */
const MAX_SIGNERS_BYTES = 1_048_576;

/** The signatures in a raw commit object (`git cat-file commit`): each `gpgsig` / `gpgsig-sha256` header's text. Pure. */
export function commitSignatures(raw: string): string[] {
  const out: string[] = [];
  let current: string[] | undefined;
  for (const line of raw.split("\n")) {
    // The headers end at the first empty line; the message follows.
    if (line === "") break;
    if (line.startsWith(" ") && current) {
      current.push(line.slice(1));
      continue;
    }
    if (current) out.push(current.join("\n"));
    current = /^gpgsig(-sha256)? /.test(line) ? [line.slice(line.indexOf(" ") + 1)] : undefined;
  }
  if (current) out.push(current.join("\n"));
  return out;
}

/** The kind of a signature, in words, from its armour. Pure. */
export function signatureKind(signature: string): "SSH" | "OpenPGP" | "X.509" | "unknown" {
  const first = signature.trimStart();
  if (first.startsWith(SSH_ARMOUR)) return "SSH";
  if (first.startsWith("-----BEGIN PGP SIGNATURE-----")) return "OpenPGP";
  if (first.startsWith("-----BEGIN SIGNED MESSAGE-----")) return "X.509";
  return "unknown";
}

/** What a verification needs: git, and the commits already verified by this process (a commit never changes). */
export interface TrustContext {
  git: GitRunner;
  signed?: Set<string>;
}

/**
 * Refuse `commit` (GIT_SIGNATURE_INVALID) unless it carries only SSH signatures and `git verify-commit`
 * finds one by a key in `signers`. `dir` is the repository holding the commit.
 */
export async function verifySigned(
  target: RepoTarget,
  ctx: TrustContext,
  dir: string,
  commit: string,
  signers: string,
): Promise<void> {
  if (ctx.signed?.has(commit)) return;
  const refuse = (why: string) =>
    new GitError(
      "GIT_SIGNATURE_INVALID",
      `refused commit ${commit.slice(0, 12)} of ${target.spec.url}: ${why}. trust.allowed_signers accepts only commits signed by a listed key; the last good checkout is kept.`,
      { details: { url: target.spec.url, commit } },
    );
  // Bounded and non-blocking (a FIFO here would hold ssh-keygen, and so the sync, until git's timeout).
  const file = readNamedFile({ path: signers, maxBytes: MAX_SIGNERS_BYTES });
  if (!file.ok)
    throw new GitError(
      "GIT_SIGNATURE_INVALID",
      file.missing
        ? `the allowed-signers file ${signers} (trust.allowed_signers) does not exist, so no commit of ${target.spec.url} can be trusted; fix the path. The last good checkout is kept.`
        : `the allowed-signers file cannot be used: ${file.reason.replace(/\.$/, "")}; no commit of ${target.spec.url} can be trusted until it is fixed. The last good checkout is kept.`,
    );
  const raw = await ctx.git.run(["cat-file", "commit", commit], { cwd: dir });
  if (raw.code !== 0) throw refuse(`it cannot be read (${gitMessage(raw.stderr) || `exit ${raw.code}`})`);
  const signatures = commitSignatures(raw.stdout);
  if (signatures.length === 0) throw refuse("it is not signed");
  const foreign = signatures.map(signatureKind).find((kind) => kind !== "SSH");
  if (foreign)
    throw refuse(
      `it carries ${foreign === "unknown" ? "a signature of an unknown kind" : `an ${foreign} signature`}, and only SSH signatures are accepted (git would hand it to gpg or gpgsm, which trust any key of the user's keyring)`,
    );
  const out = await ctx.git.run(
    [
      "-c",
      "gpg.format=ssh",
      "-c",
      `gpg.ssh.allowedSignersFile=${resolve(signers)}`,
      "-c",
      "gpg.ssh.program=ssh-keygen",
      // Security: should a signature ever reach them, these verifiers do not exist, so it fails.
      "-c",
      "gpg.openpgp.program=skillhub-refuses-openpgp",
      "-c",
      "gpg.x509.program=skillhub-refuses-x509",
      "verify-commit",
      commit,
    ],
    { cwd: dir },
  );
  if (out.code !== 0)
    throw refuse(`its signature is not by a key in ${signers} (${gitMessage(out.stderr) || `exit ${out.code}`})`);
  ctx.signed?.add(commit);
}

/**
 * Whether the copy on disk may be served: undefined when its own git config holds only what SkillHub's
 * clone writes (git-copy-guard.ts), its checked-out commit is signed by an allowed key (verifySigned)
 * and its files are exactly that commit's (no change, no untracked or ignored file, no index entry git
 * skips); else why not, in a sentence.
 */
export async function verifyCopy(target: RepoTarget, ctx: TrustContext, signers: string): Promise<string | undefined> {
  // Security: first, as the answers of the commands below depend on it.
  const settings = await copySettingsProblem(target.dir, ctx.git);
  if (settings) return settings;
  const head = await ctx.git.run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { cwd: target.dir });
  const commit = head.stdout.trim();
  if (head.code !== 0 || commit === "") return "it has no commit checked out";
  try {
    await verifySigned(target, ctx, target.dir, commit, signers);
  } catch (error) {
    if (error instanceof GitError) return error.message.replace(/; the last good checkout is kept\.$/, ".");
    throw error;
  }
  const changed = await differencesFrom(target.dir, commit, ctx.git);
  if (typeof changed === "string")
    return `its files cannot be compared with commit ${commit.slice(0, 12)} (${changed})`;
  if (changed.length === 0) return undefined;
  const first = changed[0]?.slice(3) ?? "";
  return `its files differ from the signed commit ${commit.slice(0, 12)} (${changed.length} changed, untracked or ignored, e.g. ${first})`;
}

/**
 * How git compares files with the comparison's own index (differencesFrom): change times trusted and
 * every stat field compared, and nothing git would take on trust instead of a file's stat (ignoreStat,
 * the untracked cache, a split index) on, whatever the user's git config says. A copy's own
 * core.ignorecase would let a planted `ALPHA/` pass for the tracked `alpha/`.
 */
const COMPARE_CONFIG = [
  { key: "core.ignorecase", value: "false" },
  { key: "core.trustctime", value: "true" },
  { key: "core.checkStat", value: "default" },
  { key: "core.ignoreStat", value: "false" },
  { key: "core.untrackedCache", value: "false" },
  { key: "core.splitIndex", value: "false" },
];

/**
 * How the files in `dir` differ from `commit`, as `git status --porcelain=v1 -z` entries (ignored and
 * untracked files included), or git's complaint. Security: the copy's own index is not asked: its
 * recorded times can be forged so that git takes a rewritten file for unchanged, and its entries can be
 * marked skip-worktree or assume-unchanged. The comparison has its own index, read from the commit, so
 * it holds neither.
 *
 * That index is kept beside the copy, outside it (`<home>/repos/.<slug>.index-<commit>`), so that later
 * comparisons hash only the files whose stat data differ from what it records, and a command run on a
 * large signed copy costs a walk, not a read of every byte. A rewrite changes a file's change time,
 * which no unprivileged process can set back; git compares it to the second. So an index is kept only
 * when every change time it records is older than the second before the comparison began (a file
 * changed after that is in a later second), and it is never written again: a file changed since is
 * hashed at each comparison. Not on Windows, whose stat data hold no change time.
 */
export async function differencesFrom(
  dir: string,
  commit: string,
  git: GitRunner,
  options: { platform?: NodeJS.Platform; now?: () => number } = {},
): Promise<string[] | string> {
  const keeps = (options.platform ?? process.platform) !== "win32";
  const kept = keptIndex(dir, commit);
  if (keeps && existsSync(kept)) {
    const changed = await statusWith(kept, dir, git, "read-only");
    if (typeof changed !== "string") return changed;
    // A kept index git cannot read (cut short, damaged): compare as if there were none.
    rmSync(kept, { force: true });
  }
  const before = Math.floor((options.now ?? Date.now)() / 1000) - 1;
  const scratch = `${kept}.${crypto.randomUUID()}`;
  try {
    const read = await git.run(["read-tree", commit], {
      cwd: dir,
      env: { GIT_INDEX_FILE: scratch },
      config: COMPARE_CONFIG,
    });
    if (read.code !== 0) return gitMessage(read.stderr) || `exit ${read.code}`;
    const changed = await statusWith(scratch, dir, git, "refresh");
    if (keeps && typeof changed !== "string" && (await latestChange(scratch, dir, git)) < before) keep(scratch, kept);
    return changed;
  } finally {
    rmSync(scratch, { force: true });
  }
}

/**
 * `git status` of `dir` against the index `index`: "refresh" writes into it the stat data of the files
 * it hashed and found unchanged; "read-only" leaves it as it is (--no-optional-locks).
 */
async function statusWith(
  index: string,
  dir: string,
  git: GitRunner,
  mode: "refresh" | "read-only",
): Promise<string[] | string> {
  const args = ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored"];
  const status = await git.run(mode === "read-only" ? ["--no-optional-locks", ...args] : args, {
    cwd: dir,
    env: { GIT_INDEX_FILE: index },
    config: COMPARE_CONFIG,
  });
  if (status.code !== 0) return gitMessage(status.stderr) || `exit ${status.code}`;
  return status.stdout.split("\0").filter((entry) => entry !== "");
}

/** The latest change time (in seconds) `index` records for a file; Infinity when git cannot say. */
async function latestChange(index: string, dir: string, git: GitRunner): Promise<number> {
  const listed = await git.run(["ls-files", "--debug"], { cwd: dir, env: { GIT_INDEX_FILE: index } });
  if (listed.code !== 0) return Number.POSITIVE_INFINITY;
  let latest = 0;
  for (const match of listed.stdout.matchAll(/^ {2}ctime: (\d+):/gm)) latest = Math.max(latest, Number(match[1]));
  return latest;
}

/** The comparison's index of the copy `dir` at `commit`: beside the copy, never in it. */
function keptIndex(dir: string, commit: string): string {
  return join(dirname(dir), `.${basename(dir)}.index-${commit}`);
}

/** A scratch index older than this was left by a process that died comparing (comparisons take seconds). */
const ABANDONED_MS = 60 * 60_000;

/**
 * `scratch` becomes the copy's kept index (atomically); those kept for its earlier commits go, and
 * scratch indexes long abandoned. Another process's comparison under way keeps its scratch index.
 */
function keep(scratch: string, kept: string): void {
  const folder = dirname(kept);
  const prefix = basename(kept).slice(0, basename(kept).lastIndexOf("-") + 1);
  try {
    renameSync(scratch, kept);
    for (const name of readdirSync(folder)) {
      if (!name.startsWith(prefix) || name === basename(kept)) continue;
      const rest = name.slice(prefix.length);
      const old = /^[0-9a-f]{40,64}$/.test(rest);
      const abandoned =
        /^[0-9a-f]{40,64}\.[0-9a-f-]{36}(\.lock)?$/.test(rest) && isOlder(join(folder, name), ABANDONED_MS);
      if (old || abandoned) rmSync(join(folder, name), { force: true });
    }
  } catch {
    // Only the next comparison's speed depends on it.
  }
}

function isOlder(file: string, ms: number): boolean {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat !== undefined && Date.now() - stat.mtimeMs > ms;
}
