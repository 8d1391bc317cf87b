import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isTreeOf, parseStage, parseTree, type TreeEntry, treeOf } from "../../../src/refresh/git/git-tree-check.ts";
import { cleanupTemp, tempDir } from "../../helpers/fs.ts";
import { GIT_ENV, git } from "../../helpers/git.ts";

afterAll(cleanupTemp);

function stage(repo: string): string {
  const out = Bun.spawnSync(["git", "-c", "core.quotePath=true", "ls-files", "--stage"], { cwd: repo, env: GIT_ENV });
  return out.stdout.toString();
}

describe("a tree recomputed from an index's entries", () => {
  test("is the tree git writes, for names git sorts and quotes in every way", () => {
    const repo = tempDir("skillhub-tree-");
    git(["init", "--quiet", repo]);
    const files = [
      "a.b",
      "a/b",
      "a-b/c",
      "a0",
      "skills/pdf/SKILL.md",
      "skills/pdf.md",
      "skills/pdf-x/SKILL.md",
      "café/naïve.md",
      "tab\there.md",
      'quote"and\\back.md',
      "new\nline.md",
      "deep/1/2/3/4/5/6/7/8/file",
    ];
    for (const file of files) {
      mkdirSync(join(repo, file, ".."), { recursive: true });
      writeFileSync(join(repo, file), `${file}\n`);
    }
    // A name that is not UTF-8 (Latin-1 "é"): its bytes must survive the listing as they are.
    writeFileSync(Buffer.concat([Buffer.from(`${repo}/`), Buffer.from([0x6c, 0x61, 0x74, 0xe9])]), "latin\n");
    chmodSync(join(repo, "a0"), 0o755);
    symlinkSync("a.b", join(repo, "link"));
    git(["add", "-A"], repo);
    // A submodule's commit (a gitlink) is an entry like a file's.
    git(["update-index", "--add", "--cacheinfo", `160000,${"1".repeat(40)},skills/vendored`], repo);
    const entries = parseStage(stage(repo));
    if (typeof entries === "string") throw new Error(entries);
    expect(entries.length).toBeGreaterThan(files.length);
    expect(treeOf(entries, 40)).toBe(git(["write-tree"], repo));
  });

  test("is the tree git writes in a SHA-256 repository", () => {
    const repo = tempDir("skillhub-tree-");
    git(["init", "--quiet", "--object-format=sha256", repo]);
    mkdirSync(join(repo, "skills", "pdf"), { recursive: true });
    writeFileSync(join(repo, "skills", "pdf", "SKILL.md"), "pdf\n");
    writeFileSync(join(repo, "README.md"), "readme\n");
    git(["add", "-A"], repo);
    const entries = parseStage(stage(repo));
    if (typeof entries === "string") throw new Error(entries);
    const written = git(["write-tree"], repo);
    expect(written).toHaveLength(64);
    expect(treeOf(entries, 64)).toBe(written);
  });

  test("an entry that names another object makes another tree", () => {
    const repo = tempDir("skillhub-tree-");
    git(["init", "--quiet", repo]);
    mkdirSync(join(repo, "skills", "alpha"), { recursive: true });
    writeFileSync(join(repo, "skills", "alpha", "SKILL.md"), "signed\n");
    git(["add", "-A"], repo);
    const listing = stage(repo);
    const other = git(["hash-object", "-w", "--stdin"], repo);
    const forged = listing.replace(/ [0-9a-f]{40} /, ` ${other} `);
    const entries = parseStage(forged);
    if (typeof entries === "string") throw new Error(entries);
    expect(treeOf(entries, 40)).not.toBe(git(["write-tree"], repo));
  });

  test("a listing git did not print is refused, not guessed", () => {
    expect(parseStage("100644 abc 0\tfile\n")).toContain("not understood");
    expect(parseStage(`100644 ${"a".repeat(40)} 2\tfile\n`)).toContain("unmerged");
    expect(parseStage(`100644 ${"a".repeat(40)} 0\t"bad\\q"\n`)).toContain("not understood");
  });
});

describe("an index compared with a tree git would write otherwise", () => {
  test("100664 and an empty subtree: the same files by git's listing of each tree; another object is not", async () => {
    const repo = tempDir("skillhub-tree-");
    git(["init", "--quiet", repo]);
    const mktree = (lines: string) =>
      Bun.spawnSync(["git", "mktree"], { cwd: repo, env: GIT_ENV, stdin: Buffer.from(lines) })
        .stdout.toString()
        .trim();
    const blob = Bun.spawnSync(["git", "hash-object", "-w", "--stdin"], {
      cwd: repo,
      env: GIT_ENV,
      stdin: Buffer.from("signed\n"),
    })
      .stdout.toString()
      .trim();
    const alpha = mktree(`100664 blob ${blob}\tSKILL.md\n`);
    const tree = mktree(`040000 tree ${alpha}\talpha\n040000 tree ${mktree("")}\tempty\n`);
    const index = join(tempDir(), "index");
    const env = { ...GIT_ENV, GIT_INDEX_FILE: index };
    expect(Bun.spawnSync(["git", "read-tree", tree], { cwd: repo, env }).exitCode).toBe(0);
    const listing = Bun.spawnSync(["git", "-c", "core.quotePath=true", "ls-files", "--stage"], { cwd: repo, env });
    const entries = parseStage(listing.stdout.toString());
    if (typeof entries === "string") throw new Error(entries);
    expect(entries.map((e) => e.mode)).toEqual(["100644"]);
    expect(treeOf(entries, 40)).not.toBe(tree);
    const listed: string[] = [];
    const list = async (id: string) => {
      listed.push(id);
      const out = Bun.spawnSync(["git", "-c", "core.quotePath=true", "ls-tree", id], { cwd: repo, env: GIT_ENV });
      const parsed = parseTree(out.stdout.toString());
      return typeof parsed === "string" ? undefined : parsed;
    };
    expect(await isTreeOf(entries, tree, list)).toBe(true);
    expect(listed).toEqual([tree, alpha]);
    const other = Bun.spawnSync(["git", "hash-object", "-w", "--stdin"], {
      cwd: repo,
      env: GIT_ENV,
      stdin: Buffer.from("planted\n"),
    })
      .stdout.toString()
      .trim();
    const forged = [{ ...(entries[0] as (typeof entries)[0]), id: other }];
    expect(await isTreeOf(forged, tree, list)).toBe(false);
    // A listing git did not give (it could not check the tree's hash), or one naming an entry twice.
    expect(await isTreeOf(entries, tree, async () => undefined)).toBe(false);
    const twice = async (id: string): Promise<TreeEntry[] | undefined> => {
      const once = await list(id);
      return once && [...once, ...once];
    };
    expect(await isTreeOf(entries, tree, twice)).toBe(false);
    expect(parseTree("100644 blob abc\tfile\n")).toContain("not understood");
  });
});
