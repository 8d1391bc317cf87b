import { type Dirent, lstatSync, mkdirSync, readdirSync, type Stats, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { errnoCode } from "../../util/errors.ts";
import { readNamedFile } from "../../util/named-file.ts";
import { gitMessage } from "./git-errors.ts";
import type { GitRunner } from "./git-runner.ts";

/**
 * What a repository copy's own `.git` may hold before SkillHub lets git act on it or believes what git
 * says about its files.
 *
 * Security: whoever can write a copy can write its `.git`, and git runs programs that a repository's
 * config names (a filter driver on status and checkout, `url.<base>.insteadOf` to an `ext::` transport,
 * `remote.<url>.uploadpack`, `core.sshCommand`…) and can be told not to look (`core.worktree`
 * elsewhere, `core.checkStat`, index entries marked skip-worktree or assume-unchanged). The runner turns
 * off the settings with fixed names for every command (git-runner.ts); the others cannot be listed, so
 * a copy's config may hold only what SkillHub's clone writes, and its index no entry git skips.
 */

/** Keys `git init` and `git remote add origin` write (git for Windows and macOS add a few), as git lists them. */
const WRITTEN_KEYS = new Set([
  "core.repositoryformatversion",
  "core.filemode",
  "core.bare",
  "core.logallrefupdates",
  "core.ignorecase",
  "core.precomposeunicode",
  "core.symlinks",
  "extensions.objectformat",
  "extensions.refstorage",
  "remote.origin.url",
  "remote.origin.fetch",
]);

/** What `git clone --branch --no-tags`, which copies made by earlier versions came from, adds. */
const CLONE_BRANCH_KEY = /^branch\..+\.(remote|merge)$|^remote\.origin\.tagopt$/;

/**
 * `git init` sets core.ignorecase only where file names ignore case (macOS, Windows); set elsewhere, it
 * would let a planted `ALPHA/` pass for the tracked `alpha/`.
 */
const CASE_BLIND = process.platform === "darwin" || process.platform === "win32";

/**
 * `git init` sets core.symlinks to false only where links cannot be made (Windows); set elsewhere, a
 * committed link is checked out as a file holding the link's text, not the link the commit holds.
 */
const LINKLESS = process.platform === "win32";

/**
 * The keys of a `git config --local --list -z` listing that SkillHub's clone does not write (or writes
 * with another value), in order. Pure but for the platform.
 */
export function foreignSettings(listing: string): string[] {
  const entries = listing
    .split("\0")
    .filter((entry) => entry !== "")
    .map((entry) => {
      const newline = entry.indexOf("\n");
      return newline < 0
        ? { key: entry, value: "" }
        : { key: entry.slice(0, newline), value: entry.slice(newline + 1) };
    });
  return foreignKeys(entries);
}

/**
 * The keys of a copy's config entries (git-config-file.ts, or git's own listing) that SkillHub's clone does
 * not write, or writes with another value, in order: the one list of what makes a copy's config foreign.
 * Security: besides settings that run a program or hide a change, it names those that make git read
 * another file or address than the one the origin check read (`include.path`, `includeIf.*.path`,
 * `url.*.insteadOf`, `extensions.worktreeConfig`). Pure but for the platform.
 */
export function foreignKeys(entries: readonly { key: string; value: string }[]): string[] {
  return entries
    .filter(({ key, value }) => {
      if (key === "core.ignorecase") return value !== "false" && !CASE_BLIND;
      if (key === "core.symlinks") return value !== "true" && !LINKLESS;
      return !WRITTEN_KEYS.has(key) && !CLONE_BRANCH_KEY.test(key);
    })
    .map(({ key }) => key);
}

/** Why a copy whose config holds the `foreign` keys (foreignKeys) is not trusted, in words; undefined for none. */
export function foreignSettingsWhy(foreign: readonly string[]): string | undefined {
  const keys = [...new Set(foreign)];
  if (keys.length === 0) return undefined;
  const named = keys.length > 3 ? `${keys.slice(0, 3).join(", ")}…` : keys.join(", ");
  return `its .git/config holds settings SkillHub does not write (${named}), which could run a program, hide a change or move its origin`;
}

/**
 * Files of a copy's `.git` that make git take its config, objects or refs from another folder: a copy that
 * holds one is not its own (its `.git/config` is not the one git reads).
 */
const ELSEWHERE_FILES = ["commondir"];

/** The first of ELSEWHERE_FILES the copy in `dir` holds (anything by that name, a link too), in words. */
export function elsewhereFile(dir: string): string | undefined {
  for (const name of ELSEWHERE_FILES) {
    const stat = gitFileStat(dir, name);
    if (typeof stat === "string") return stat;
    if (stat) return `its .git/${name} makes git read another repository's config`;
  }
  return undefined;
}

/** The lstat of `.git/<name>` in the copy in `dir`: undefined when there is none, or why it cannot be had. */
function gitFileStat(dir: string, name: string): Stats | undefined | string {
  try {
    return lstatSync(join(dir, ".git", name), { throwIfNoEntry: false });
  } catch (error) {
    return `its .git/${name} cannot be looked at (${(error as Error).message})`;
  }
}

/**
 * The files of a copy's `.git` that git opens before a command does its work (repository discovery,
 * config, the object store, shallow and replaced history, refs), and the index the sync's commands read.
 */
const READ_FIRST = [
  "HEAD",
  "config",
  "commondir",
  "shallow",
  "info/grafts",
  "packed-refs",
  "index",
  "objects/info/alternates",
];

/**
 * Most files and folders of a copy's `.git` looked through (gitFilesProblem). A fresh clone holds a few
 * dozen; each sync that brings changes adds a pack until a sync repacks them (repackWhenMany), so a copy
 * near the limit is one whose history is best fetched again.
 */
export const GIT_ENTRIES_MAX = 100_000;

/**
 * Why git must not be started on the copy in `dir` at all, in words, or undefined: its `.git` (or
 * `.git/info`) is no folder of its own, so git would act on another repository; a file git opens
 * first (READ_FIRST) is not a regular file; anything else in `.git` is neither a regular file nor a
 * folder; or it holds a file that makes git read another folder's config (elsewhereFile). No file is
 * opened: a listing of each folder (GIT_ENTRIES_MAX entries at most) and a few lstats.
 * Security (availability): git opens the files of its `.git` with no time limit of its own (a loose
 * object, a ref, a pack's index, the index, a reflog it appends to), so a FIFO put in one's place, or a
 * link to one, holds every git command on the copy until the runner's timeout (two minutes each).
 */
export function gitFilesProblem(dir: string, max: number = GIT_ENTRIES_MAX): string | undefined {
  const folder = notOwnFolder(dir);
  if (folder) return notOwn(folder);
  for (const name of READ_FIRST) {
    const stat = gitFileStat(dir, name);
    if (typeof stat === "string") return stat;
    if (stat && !stat.isFile()) return waitedOn(name);
  }
  return oddEntry(join(dir, ".git"), max) ?? elsewhereFile(dir);
}

/**
 * The first entry under `root` (a copy's `.git`) that is neither a regular file nor a folder, in words.
 * Synchronous and on every sync, so no more than a listing per folder: in the order the file system
 * gives, unsorted, and no path built for a file.
 */
function oddEntry(root: string, max: number): string | undefined {
  const folders = [""];
  let seen = 0;
  for (let at = 0; at < folders.length; at++) {
    const rel = folders[at] as string;
    let entries: Dirent[];
    try {
      entries = readdirSync(rel === "" ? root : join(root, rel), { withFileTypes: true });
    } catch (error) {
      // Gone since its parent was listed (git prunes emptied object folders): nothing there to wait on.
      if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") continue;
      // Security: a folder git can pass through but SkillHub cannot list could hide a FIFO under a known name.
      return `its .git/${rel} cannot be listed (${(error as Error).message})`;
    }
    seen += entries.length;
    if (seen > max) return `its .git holds more than ${max} files and folders, more than SkillHub looks through`;
    for (const entry of entries) {
      if (entry.isFile()) continue;
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      // A link is neither (isDirectory and isFile describe the entry itself, never what it leads to).
      if (entry.isDirectory()) folders.push(path);
      else return waitedOn(path);
    }
  }
  return undefined;
}

function waitedOn(path: string): string {
  return `its .git/${path} is not a regular file, which git would wait on`;
}

/**
 * Why git must not be trusted with the copy in `dir`, in words, or undefined: gitFilesProblem, then
 * settingsProblem.
 */
export async function copySettingsProblem(dir: string, git: GitRunner): Promise<string | undefined> {
  return gitFilesProblem(dir) ?? (await settingsProblem(dir, git));
}

/**
 * Why git must not be trusted with the copy in `dir` because of its own config, in words, or
 * undefined when the config holds only what SkillHub's clone writes. `git config` runs no program.
 * Only on a copy gitFilesProblem has just passed (copySettingsProblem, or a sync that walked it first).
 */
export async function settingsProblem(dir: string, git: GitRunner): Promise<string | undefined> {
  const out = await git.run(["config", "--local", "--list", "-z"], { cwd: dir });
  if (out.code !== 0) return `its .git/config cannot be read (${gitMessage(out.stderr) || `exit ${out.code}`})`;
  const foreign = foreignSettingsWhy(foreignSettings(out.stdout));
  if (foreign) return foreign;
  const where = await git.run(["rev-parse", "--git-path", "info/attributes"], { cwd: dir });
  if (where.code !== 0) return `its .git cannot be read (${gitMessage(where.stderr) || `exit ${where.code}`})`;
  const file = resolve(dir, where.stdout.trim());
  // Security: the file git reads, and SkillHub may write, is the copy's own: not in the repository a `.git`
  // file names, nor where a link in .git leads (to ~/.config/git, whose `attributes` every repository reads).
  const foreignFolder = notOwnFolder(dir) ?? (file === join(dir, ".git", "info", "attributes") ? undefined : ".git");
  if (foreignFolder) return notOwn(foreignFolder);
  // A copy made before SkillHub wrote the file, or one whose file was taken away: written (again) here.
  // Another SkillHub (one per MCP client) may write it between the read and the write: then it is read again.
  let raw = attributesOf(file);
  if (raw === undefined) {
    const unwritten = writeRawAttributes(file);
    raw = attributesOf(file);
    if (raw === undefined) return unwritten;
  }
  if (raw) return undefined;
  return "its .git/info/attributes sets attributes SkillHub does not write, which could hide a change to a file";
}

/** Whether the file at `file` is RAW_ATTRIBUTES; undefined when there is none. */
function attributesOf(file: string): boolean | undefined {
  // The bounded reader: a FIFO or device put there is refused, never waited on.
  const read = readNamedFile({ path: file, maxBytes: RAW_ATTRIBUTES.length + 1 });
  if (!read.ok) return read.missing ? undefined : false;
  return read.bytes.toString("utf8") === RAW_ATTRIBUTES;
}

function notOwn(folder: string): string {
  return `its ${folder} is not a folder of the copy (a link or a .git file leading elsewhere)`;
}

/** `.git` or `.git/info` of the copy in `dir` when it is no folder of its own (a link, a file); `.git/info` may be missing. */
function notOwnFolder(dir: string): string | undefined {
  for (const name of [".git", ".git/info"]) {
    const stat = lstatSync(join(dir, name), { throwIfNoEntry: false });
    if (stat === undefined && name === ".git/info") continue;
    if (!stat?.isDirectory()) return name;
  }
  return undefined;
}

/**
 * Every file as its commit holds it: no line-ending conversion, no `$Id$` expansion, no filter or
 * encoding, whatever a repository's own .gitattributes says (.git/info/attributes comes before it).
 *
 * Security: attributes git applies before it compares a file let a rewritten file pass for the committed
 * one: with a committed `* ident`, `$Id: anything $` compares equal to `$Id$`; with `text`, a line's
 * ending. Checked out and compared raw, a file passes only with the very bytes signed. Skills are
 * served as committed, on every system.
 */
export const RAW_ATTRIBUTES = "* -text -ident -filter -working-tree-encoding\n";

/** Write RAW_ATTRIBUTES at `file` (a copy's `.git/info/attributes`); why it could not be, in words. */
export function writeRawAttributes(file: string): string | undefined {
  try {
    mkdirSync(dirname(file), { recursive: true });
    // Exclusive: a link put in the file's place (even to nothing) is not followed.
    writeFileSync(file, RAW_ATTRIBUTES, { flag: "wx" });
    return undefined;
  } catch (error) {
    return `its .git/info/attributes cannot be written (${(error as Error).message})`;
  }
}

/**
 * The paths of a `git ls-files -v -z` listing whose index entry is not a plain one ("H"): marked
 * skip-worktree ("S") or assume-unchanged (lower case), which `git status` does not compare with the
 * work tree and `git checkout --force` does not rewrite, or unmerged. Pure.
 */
export function skippedEntries(listing: string): string[] {
  return listing
    .split("\0")
    .filter((entry) => entry !== "" && !entry.startsWith("H "))
    .map((entry) => entry.slice(2));
}
