import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseStage, treeOf } from "../../../src/refresh/git/git-tree-check.ts";
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
