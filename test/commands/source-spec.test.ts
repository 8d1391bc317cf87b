import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { hashRefForm, parseSource, SourceError } from "../../src/commands/source-spec.ts";
import { repoPath, repoTargets } from "../../src/refresh/repo-targets.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";

afterAll(cleanupTemp);

const cwd = tempDir("skillhub-spec-cwd-");
const homeDir = tempDir("skillhub-spec-home-");
const parse = (text: string) => parseSource(text, { cwd, homeDir });

describe("sources as `skillhub add` reads them", () => {
  test("GitHub shorthands expand to the repository's https URL, with a folder and a ref", () => {
    expect(parse("anthropics/skills")).toEqual({
      kind: "git",
      url: "https://github.com/anthropics/skills.git",
      written: "anthropics/skills",
    });
    expect(parse("anthropics/skills/skills/pdf")).toMatchObject({
      url: "https://github.com/anthropics/skills.git",
      path: "skills/pdf",
    });
    expect(parse("vercel-labs/agent-skills.git@v1.2.0")).toMatchObject({
      url: "https://github.com/vercel-labs/agent-skills.git",
      ref: "v1.2.0",
    });
    expect(parse("acme/skills/pdf/@main")).toMatchObject({ path: "pdf", ref: "main" });
  });

  test("URLs: https, ssh, git@host:path and file, with #REF; a GitHub folder page gives its repository, ref and folder", () => {
    expect(parse("https://git.example.com/team/skills.git#v2")).toMatchObject({
      url: "https://git.example.com/team/skills.git",
      ref: "v2",
    });
    expect(parse("git@github.com:acme/skills.git")).toMatchObject({ url: "git@github.com:acme/skills.git" });
    expect(parse("ssh://git@host:2222/skills.git")).toMatchObject({ url: "ssh://git@host:2222/skills.git" });
    expect(parse("file:///srv/git/skills.git")).toMatchObject({ url: "file:///srv/git/skills.git" });
    expect(parse("https://github.com/anthropics/skills/tree/main/skills/pdf")).toMatchObject({
      url: "https://github.com/anthropics/skills.git",
      ref: "main",
      path: "skills/pdf",
    });
  });

  test("folders: a path, ~, or an existing folder (which wins over the shorthand it looks like)", () => {
    mkdirSync(join(cwd, "acme", "skills"), { recursive: true });
    mkdirSync(join(homeDir, "my-skills"));
    expect(parse("acme/skills")).toEqual({ kind: "folder", dir: join(cwd, "acme", "skills"), written: "acme/skills" });
    expect(parse("./acme")).toMatchObject({ kind: "folder", dir: join(cwd, "acme") });
    expect(parse("~/my-skills")).toMatchObject({ kind: "folder", dir: join(homeDir, "my-skills") });
    expect(parse(cwd)).toMatchObject({ kind: "folder", dir: cwd });
  });

  test("a bare repository's path is that repository as a file:// URL; a checkout is a folder", () => {
    const bare = join(cwd, "team.git");
    mkdirSync(join(bare, "objects"), { recursive: true });
    mkdirSync(join(bare, "refs"));
    writeFileSync(join(bare, "HEAD"), "ref: refs/heads/main\n");
    expect(parse("./team.git")).toEqual({
      kind: "git",
      url: pathToFileURL(bare).href,
      written: "./team.git",
      bare: true,
    });
    expect(parse(bare)).toMatchObject({ kind: "git", url: pathToFileURL(bare).href });
    mkdirSync(join(cwd, "checkout", ".git"), { recursive: true });
    expect(parse("./checkout")).toMatchObject({ kind: "folder", dir: join(cwd, "checkout") });
  });

  test("a URL ending in @REF has a #REF form; the user of git@host:path or ssh:// is no ref", () => {
    expect(hashRefForm("file:///srv/git/team.git@v1")).toEqual({ url: "file:///srv/git/team.git#v1", ref: "v1" });
    expect(hashRefForm("https://git.example.com/team/skills.git@release/2")).toBeUndefined();
    expect(hashRefForm("https://git.example.com/team/skills@main")).toEqual({
      url: "https://git.example.com/team/skills#main",
      ref: "main",
    });
    expect(hashRefForm("git@github.com:acme/skills.git@v2")).toEqual({
      url: "git@github.com:acme/skills.git#v2",
      ref: "v2",
    });
    for (const plain of [
      "git@github.com:acme/skills.git",
      "ssh://git@host:2222/skills.git",
      "ssh://git@host",
      "file:///srv/git/team.git#v1",
      "acme/skills@v1",
    ])
      expect(hashRefForm(plain), plain).toBeUndefined();
  });

  test("what is none of these is one sentence", () => {
    writeFileSync(join(cwd, "notes.txt"), "x");
    const cases: [string, string][] = [
      ["", "name a source"],
      ["ht!tp://x", "is not a git URL, an owner/repo GitHub shorthand or a folder"],
      ["ftp://host/x.git", "is not a git URL SkillHub fetches"],
      ["https://", "is not a valid URL"],
      ["./notes.txt", "is a file, not a folder of skills"],
      ["./missing", "does not exist"],
      ["-rf", "is not a source; if it is a folder, write ./-rf"],
      ["just-a-word", "is not a git URL"],
    ];
    for (const [text, message] of cases) {
      let error: unknown;
      try {
        parse(text);
      } catch (e) {
        error = e;
      }
      expect(error, text).toBeInstanceOf(SourceError);
      expect((error as Error).message).toContain(message);
      expect((error as Error).message.split(". ").length).toBeLessThanOrEqual(2);
    }
  });
});

describe("repos: entries with their own ref, branch and folder", () => {
  const home = "/h/.skillhub";
  test("each entry's ref or branch wins over SKILLS_REF / SKILLS_BRANCH; folders get their own copy and label", () => {
    const targets = repoTargets({
      home,
      branch: "main",
      ref: "v9",
      repos: [
        "https://example.com/team/skills.git",
        { url: "https://example.com/team/skills.git", path: "skills/pdf", ref: "v1" },
        { url: "https://example.com/other/docs.git", branch: "develop" },
      ],
    });
    expect(targets.map((t) => [t.label, t.ref ?? null, t.branch, t.path ?? null])).toEqual([
      ["skills", "v9", "main", null],
      ["skills-pdf", "v1", "main", "skills/pdf"],
      ["docs", null, "develop", null],
    ]);
    expect(new Set(targets.map((t) => t.dir)).size).toBe(3);
  });

  test("the same repository and folder twice is synced once; a bad ref, branch or folder names the entry", () => {
    const url = "https://example.com/team/skills.git";
    expect(
      repoTargets({ home, branch: "main", repos: [url, `${url}/`, { url: url.replace(".git", "") }] }),
    ).toHaveLength(1);
    expect(() => repoTargets({ home, branch: "main", repos: [{ url, ref: "-x" }] })).toThrow(
      `repos entry "${url}" ref = "-x"`,
    );
    expect(() => repoTargets({ home, branch: "main", repos: [{ url, branch: "a..b" }] })).toThrow("branch");
    expect(() => repoPath("/etc", "entry")).toThrow("expected a folder inside the repository");
    expect(() => repoPath("a/../../b", "entry")).toThrow("expected a folder inside the repository");
    expect(repoPath("./skills//pdf/", "entry")).toBe("skills/pdf");
    expect(repoPath(".", "entry")).toBeUndefined();
  });
});
