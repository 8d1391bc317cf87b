import { lstatSync, readdirSync, rmSync, type Stats } from "node:fs";
import { join } from "node:path";
import { program } from "../../util/program-name.ts";
import { copySettingsProblem } from "./git-copy-guard.ts";
import { GitError, gitMessage } from "./git-errors.ts";
import type { GitRunner } from "./git-runner.ts";
import { readSigners, withSignersCopy } from "./git-signers.ts";
import { type RepoTarget, updateCommand } from "./git-target.ts";
import { type IndexEntry, isTreeOf, parseStage, parseTree, treeOf } from "./git-tree-check.ts";

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
 * What serves a pinned repository again once its locked commit is refused: a plain sync never moves a
 * pin, so a newly signed commit alone changes nothing; the pin has to be moved to it.
 */
export function pinnedToSigned(target: RepoTarget, signers: string): string {
  return `its pin ${target.ref} names a commit signed by a key in ${signers}: a signer signs and tags one, then \`${updateCommand(target)}\` moves the pin if the tag ${target.ref} was moved to it, or the new tag is pinned (\`skillhub add ${target.spec.url}#NEW-TAG\`, \`ref:\`, SKILLS_REF)`;
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
  const refuse = (why: string) =>
    new GitError(
      "GIT_SIGNATURE_INVALID",
      `refused commit ${commit.slice(0, 12)} of ${target.spec.url}: ${why}. trust.allowed_signers accepts only commits signed by a listed key.`,
      { details: { url: target.spec.url, commit } },
    );
  // Bounded and non-blocking (a FIFO here would hold ssh-keygen, and so the sync, until git's timeout), and
  // only if no other user can change it (git-signers.ts).
  const file = readSigners(signers);
  if (!file.ok)
    throw new GitError(
      "GIT_SIGNATURE_INVALID",
      file.missing
        ? `the allowed-signers file ${signers} (trust.allowed_signers) does not exist, so no commit of ${target.spec.url} can be trusted; fix the path.`
        : `the allowed-signers file cannot be used: ${file.reason}; no commit of ${target.spec.url} can be trusted until it is fixed.`,
    );
  // Remembered with the file's content: a key taken out of the file no longer vouches for what it signed.
  const verified = `${file.digest}:${commit}`;
  if (ctx.signed?.has(verified)) return;
  const raw = await ctx.git.run(["cat-file", "commit", commit], { cwd: dir });
  if (raw.code !== 0) throw refuse(`it cannot be read (${gitMessage(raw.stderr) || `exit ${raw.code}`})`);
  const signatures = commitSignatures(raw.stdout);
  if (signatures.length === 0) throw refuse("it is not signed");
  const foreign = signatures.map(signatureKind).find((kind) => kind !== "SSH");
  if (foreign)
    throw refuse(
      `it carries ${foreign === "unknown" ? "a signature of an unknown kind" : `an ${foreign} signature`}, and only SSH signatures are accepted (git would hand it to gpg or gpgsm, which trust any key of the user's keyring)`,
    );
  const out = await withSignersCopy(file.bytes, (copy) =>
    ctx.git
      .run(
        [
          "-c",
          "gpg.format=ssh",
          "-c",
          `gpg.ssh.allowedSignersFile=${copy}`,
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
      )
      .then((result) => ({ ...result, stderr: result.stderr.split(copy).join(signers) })),
  );
  if (out.code !== 0)
    throw refuse(`its signature is not by a key in ${signers} (${gitMessage(out.stderr) || `exit ${out.code}`})`);
  ctx.signed?.add(verified);
}

/** Why a copy on disk is not served, and what brings it back. */
export interface CopyVerdict {
  /** A sentence: why not. */
  why: string;
  /** A sentence: what serves it again. */
  fix: string;
}

/**
 * Whether the copy on disk may be served: undefined when its own git config holds only what SkillHub's
 * clone writes (git-copy-guard.ts), its checked-out commit is signed by an allowed key (verifySigned)
 * and its files are exactly that commit's (no change, no untracked or ignored file, no index entry git
 * skips); else why not, and what serves it again.
 */
export async function verifyCopy(
  target: RepoTarget,
  ctx: TrustContext,
  signers: string,
): Promise<CopyVerdict | undefined> {
  // Security: first, as the answers of the commands below depend on it.
  const settings = await copySettingsProblem(target.dir, ctx.git);
  // Built only for a copy refused: a copy that passes names no command.
  const again = () => `the next sync (\`${program()} sync\`, refresh_skills) clones it again`;
  if (settings) return { why: settings, fix: again() };
  const head = await ctx.git.run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { cwd: target.dir });
  const commit = head.stdout.trim();
  if (head.code !== 0 || commit === "") return { why: "it has no commit checked out", fix: again() };
  try {
    await verifySigned(target, ctx, target.dir, commit, signers);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    return {
      why: error.message,
      fix:
        error.details.commit === undefined
          ? "it is checked again once the allowed-signers file is fixed"
          : target.ref
            ? `it is served again once ${pinnedToSigned(target, signers)}`
            : `a sync serves it again once ${target.branch} of ${target.spec.url} has a commit signed by a key in ${signers} (pushed by someone whose key the file lists)`,
    };
  }
  const changed = await differencesFrom(target.dir, commit, ctx.git);
  const restore = () =>
    `\`${program()} sync\` (or refresh_skills) puts its files back at commit ${commit.slice(0, 12)}, or at a newer signed one`;
  if ("forged" in changed) return { why: changed.forged, fix: again() };
  if ("failed" in changed)
    return {
      why: `its files cannot be compared with commit ${commit.slice(0, 12)} (${changed.failed})`,
      fix: restore(),
    };
  if (changed.changed.length === 0) return undefined;
  const first = changed.changed[0]?.slice(3) ?? "";
  return {
    why: `its files differ from the signed commit ${commit.slice(0, 12)} (${changed.changed.length} changed, untracked or ignored, e.g. ${first})`,
    fix: restore(),
  };
}

/** How the files of a copy differ from a commit: differencesFrom's answer. */
export type Differences =
  /** `git status --porcelain=v1 -z` entries: changed, untracked and ignored files (none: the copy is the commit). */
  | { changed: string[] }
  /** git could not compare them: its complaint. */
  | { failed: string }
  /** The copy's `.git` holds a tree that is not the commit's under the commit's name for it: why, in words. */
  | { forged: string };

/**
 * How the files in `dir` differ from `commit`, as `git status --porcelain=v1 -z` entries (ignored and
 * untracked files included). Security: the copy's own index is not asked: its recorded times can be
 * forged so that git takes a rewritten file for unchanged, and its entries can be marked skip-worktree
 * or assume-unchanged. A scratch index read from the commit holds neither, so git hashes every file;
 * and the trees that index was read from are checked to be the commit's (git-tree-check.ts), since git
 * does not check a subtree's content against its name.
 */
export async function differencesFrom(dir: string, commit: string, git: GitRunner): Promise<Differences> {
  // node:os when git runs, not at start-up.
  const index = join(
    (require("node:os") as typeof import("node:os")).tmpdir(),
    `skillhub-index-${crypto.randomUUID()}`,
  );
  const env = { GIT_INDEX_FILE: index };
  // A copy's own core.ignorecase would let a planted `ALPHA/` pass for the tracked `alpha/`.
  const config = [{ key: "core.ignorecase", value: "false" }];
  const failed = (out: { stderr: string; code: number }) => ({ failed: gitMessage(out.stderr) || `exit ${out.code}` });
  try {
    const read = await git.run(["read-tree", commit], { cwd: dir, env, config });
    if (read.code !== 0) return failed(read);
    const entries = await signedEntries(dir, commit, git, env);
    if (typeof entries === "string") return { forged: entries };
    // --no-optional-locks: the scratch index is not rewritten, nor is the copy's own touched.
    const status = await git.run(
      ["--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored"],
      { cwd: dir, env, config },
    );
    if (status.code !== 0) return failed(status);
    // Security: a folder git cannot list (made execute-only, its files still open by name) is passed over
    // with a warning, and what it holds would pass for the commit's.
    const unlisted = /^warning: (could not open directory .*)$/m.exec(status.stderr);
    if (unlisted) return { failed: unlisted[1] as string };
    const changed = status.stdout.split("\0").filter((entry) => entry !== "");
    return { changed: [...changed, ...inSubmodules(dir, entries), ...nestedRepositories(dir, entries)] };
  } finally {
    rmSync(index, { force: true });
  }
}

/**
 * The entries of the index at `env.GIT_INDEX_FILE`, just read from `commit`, when they are exactly that
 * commit's tree; else why not: every tree recomputed from the entries, the root compared with the tree
 * the commit names (which git reads with its hash checked); a tree git would write otherwise is compared
 * with git's hash-checked listing of it (git-tree-check.ts).
 */
async function signedEntries(
  dir: string,
  commit: string,
  git: GitRunner,
  env: Record<string, string>,
): Promise<IndexEntry[] | string> {
  const short = commit.slice(0, 12);
  const named = await git.run(["rev-parse", "--verify", "--quiet", `${commit}^{tree}`], { cwd: dir });
  const tree = named.stdout.trim();
  if (named.code !== 0 || !/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(tree))
    return `its .git cannot give the tree of commit ${short} (${gitMessage(named.stderr) || `exit ${named.code}`})`;
  const stage = await git.run(["ls-files", "--stage"], {
    cwd: dir,
    env,
    config: [{ key: "core.quotePath", value: "true" }],
  });
  if (stage.code !== 0)
    return `its .git cannot list commit ${short}'s files (${gitMessage(stage.stderr) || `exit ${stage.code}`})`;
  const entries = parseStage(stage.stdout);
  if (typeof entries === "string") return `its .git cannot list commit ${short}'s files (${entries})`;
  const listTree = async (id: string) => {
    const out = await git.run(["ls-tree", id], { cwd: dir, config: [{ key: "core.quotePath", value: "true" }] });
    const listed = out.code === 0 ? parseTree(out.stdout) : "";
    return typeof listed === "string" ? undefined : listed;
  };
  if (await isTreeOf(entries, tree, listTree)) return entries;
  const made = treeOf(entries, tree.length === 40 ? 40 : 64);
  return `its .git holds trees that are not those of commit ${short}: the files git reads for it make tree ${made.slice(0, 12)}, and the signed commit names tree ${tree.slice(0, 12)} (objects replaced on disk)`;
}

/**
 * The `.git` of another repository in a folder of the commit, as status entries ("?? <folder>/.git").
 * Security: git status never names a `.git`, nor does `git clean` take one out of a tracked folder, and a
 * commit cannot hold one: one there was put there since. A script of the skill whose folder holds it, or
 * lies under it, that runs git (`git rev-parse`, `git log`) would use that repository, whose config can
 * name a program to run (core.fsmonitor). One lstat per folder of the commit.
 */
function nestedRepositories(dir: string, entries: readonly IndexEntry[]): string[] {
  const folders = new Set<string>();
  for (const entry of entries) {
    // latin1 keeps every byte of a path as one character, so any name is kept as it is.
    const path = Buffer.from(entry.path).toString("latin1");
    for (let at = path.indexOf("/"); at > 0; at = path.indexOf("/", at + 1)) folders.add(path.slice(0, at));
  }
  const found: string[] = [];
  for (const folder of folders) {
    const bytes = Buffer.from(folder, "latin1");
    if (lstatSync(Buffer.concat([Buffer.from(`${dir}/`), bytes, Buffer.from("/.git")]), { throwIfNoEntry: false }))
      found.push(`?? ${bytes.toString("utf8")}/.git`);
  }
  return found;
}

/**
 * What the folders of the commit's submodules hold, as status entries ("?? <path>"). Security: git status
 * looks neither into a submodule's folder nor for untracked files there, and SkillHub never fills one
 * (no submodule is cloned): anything in it was put there since, and a skill planted in it would be served.
 */
function inSubmodules(dir: string, entries: readonly IndexEntry[]): string[] {
  const found: string[] = [];
  for (const entry of entries) {
    if (entry.mode !== "160000") continue;
    const path = Buffer.concat([Buffer.from(`${dir}/`), entry.path]);
    const shown = Buffer.from(entry.path).toString("utf8");
    let stat: Stats | undefined;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (!stat.isDirectory()) {
      found.push(`?? ${shown}`);
      continue;
    }
    try {
      const inside = readdirSync(path);
      if (inside.length > 0) found.push(`?? ${shown}/${inside[0]}`);
    } catch {
      found.push(`?? ${shown}/`);
    }
  }
  return found;
}
