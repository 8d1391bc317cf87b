import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Config, RepoEntryConfig } from "../../src/config/schema.ts";
import { copyRepos, overriddenPins, repoTargets } from "../../src/refresh/repo-targets.ts";
import { TEAM_SPELLINGS } from "../helpers/repo-urls.ts";

const home = "/h/.skillhub";
const mine: RepoEntryConfig = { url: "https://example.com/me/skills.git", scope: "user" };
const copies = (repos: (string | RepoEntryConfig)[], lock: string) =>
  repoTargets({ repos, branch: "main", home, lock }).map((t) => t.dir.slice(join(home, "repos").length + 1));

describe("which copy a repository uses: the one of the lock that pins it", () => {
  test("your repository shares SkillHub's own lock's copy across projects that read that lock", () => {
    const [a] = copies([mine], "/pa/skillhub.lock");
    const [b] = copies([mine], "/pb/skillhub.lock");
    expect(a).toMatch(/^skills-[0-9a-f]{8}$/);
    expect(b).toBe(a as string);
  });

  test("with lock.file, that lock pins your repository too: its copy is that lock's, not the shared one", () => {
    const config = { lock: { file: "/pa/one.lock" }, git: { repos: [mine] } } as unknown as Config;
    const [shared] = copies([mine], "/pb/skillhub.lock");
    const [one] = copies(copyRepos(config), "/pa/one.lock");
    expect(one).not.toBe(shared as string);
    expect(one).toMatch(/^skills-[0-9a-f]{8}-[0-9a-f]{8}$/);
  });

  test("a project's entry of your URL with another folder is pinned by your lock, so it uses that lock's copies", () => {
    const other: RepoEntryConfig = { url: mine.url, path: "more", scope: "project" };
    const inA = copies([other, mine], "/pa/skillhub.lock");
    const inB = copies([other, mine], "/pb/skillhub.lock");
    expect(inA).toEqual(inB);
    const stranger = copies([{ url: "https://example.com/team/skills.git", scope: "project" }], "/pa/skillhub.lock");
    expect(stranger[0]).not.toEqual(copies([{ url: "https://example.com/team/skills.git" }], "/pb/skillhub.lock")[0]);
  });

  test("a project's entry of your URL follows your entry's branch and pin, with lock.file too", () => {
    const fork = "a".repeat(40);
    const pinned: RepoEntryConfig = { ...mine, ref: "v1" };
    const theirs: RepoEntryConfig = { url: mine.url, ref: fork, scope: "project" };
    const elsewhere: RepoEntryConfig = { url: mine.url, branch: "evil", path: "more", scope: "project" };
    const refs = (repos: (string | RepoEntryConfig)[]) =>
      repoTargets({ repos, branch: "main", home }).map((t) => [t.ref, t.branch]);
    expect(refs([theirs, elsewhere, pinned])).toEqual([
      ["v1", "main"],
      ["v1", "main"],
    ]);
    const config = { lock: { file: "/pa/one.lock" }, git: { repos: [theirs, elsewhere, pinned] } } as unknown as Config;
    expect(refs(copyRepos(config))).toEqual([
      ["v1", "main"],
      ["v1", "main"],
    ]);
    // A project's entry of a repository that is not yours keeps its own.
    const team: RepoEntryConfig = { url: "https://example.com/team/skills.git", ref: fork, scope: "project" };
    expect(refs([team, { url: "https://example.com/other/skills.git" }])).toEqual([
      [fork, "main"],
      [undefined, "main"],
    ]);
  });

  test("a project's entry of SKILLS_REPO's URL, however spelt, is SKILLS_REPO's entry: its URL, rights, branch and pin", () => {
    const fork = "a".repeat(40);
    const team = "https://example.com/team/skills.git";
    for (const spelt of [team, `${team}/`, "https://example.com/team/skills", "https://EXAMPLE.com/team/skills.git/"]) {
      const theirs: RepoEntryConfig = { url: spelt, ref: fork, branch: "evil", scope: "project" };
      const targets = (ref?: string) =>
        repoTargets({ repos: [theirs, team], branch: "main", home, ...(ref ? { ref } : {}) }).map((t) => ({
          url: t.spec.url,
          ref: t.ref,
          branch: t.branch,
          project: t.project,
        }));
      expect(targets()).toEqual([{ url: team, ref: undefined, branch: "main", project: undefined }]);
      expect(targets("v1")).toEqual([{ url: team, ref: "v1", branch: "main", project: undefined }]);
      // Another folder of it is still the project's (no token, its scripts the project's), at SKILLS_REPO's pin.
      const folder: RepoEntryConfig = { ...theirs, path: "skills/deploy" };
      const both = repoTargets({ repos: [folder, team], branch: "main", home, ref: "v1" });
      expect(both.map((t) => [t.ref, t.branch, t.project])).toEqual([
        ["v1", "main", true],
        ["v1", "main", undefined],
      ]);
    }
  });

  test("a project's entry of your repository in another transport, case or form of its URL is your entry", () => {
    const team = "https://github.com/org/team";
    const spellings = TEAM_SPELLINGS;
    for (const yours of [team, { url: team, scope: "user" } as RepoEntryConfig])
      for (const spelt of spellings) {
        const theirs: RepoEntryConfig = { url: spelt, ref: "v0.1", scope: "project" };
        const targets = repoTargets({ repos: [theirs, yours], branch: "main", home, lock: "/pa/skillhub.lock" });
        // One copy, yours: your URL (the token goes to it), your branch, no project's rights, your label.
        expect(
          targets.map((t) => ({ label: t.label, url: t.spec.url, ref: t.ref, branch: t.branch, project: t.project })),
          spelt,
        ).toEqual([{ label: "team", url: team, ref: undefined, branch: "main", project: undefined }]);
        // Its copy is the one your entry has: SkillHub's own lock's for your config file's, the project lock's
        // for SKILLS_REPO's (as named before: existing copies stay in use).
        const folder = targets[0]?.dir.slice(join(home, "repos").length + 1);
        if (typeof yours === "string") expect(folder, spelt).toMatch(/^team-a4b89a85-[0-9a-f]{8}$/);
        else expect(folder, spelt).toBe("team-a4b89a85");
        expect(overriddenPins({ repos: [theirs, yours], branch: "main" })[0], spelt).toStartWith(
          `the project's skillhub.yaml gives ${spelt} ref v0.1, but `,
        );
      }
  });

  test("a project's repository that only looks like yours keeps its own URL, pin, rights and label", () => {
    const team = "https://github.com/org/team";
    for (const other of [
      "https://github.com/org/team2",
      "https://gitlab.com/org/team",
      "git@gitlab.com:org/team.git",
      "https://example.com/github.com/org/team",
      "https://github.com:8443/org/team",
      "codecommit::https://github.com/org/team",
    ]) {
      const theirs: RepoEntryConfig = { url: other, ref: "v0.1", scope: "project" };
      const targets = repoTargets({ repos: [theirs, team], branch: "main", home });
      expect(
        targets.map((t) => [t.spec.url, t.ref, t.project]),
        other,
      ).toEqual([
        [other, "v0.1", true],
        [team, undefined, undefined],
      ]);
      expect(targets[1]?.label, other).toBe("team");
      expect(overriddenPins({ repos: [theirs, team], branch: "main" }), other).toEqual([]);
    }
    // Elsewhere than on hosts known to ignore it, a path's case is another repository.
    const own = "https://example.com/org/team";
    const upper: RepoEntryConfig = { url: "https://example.com/ORG/team", ref: "v0.1", scope: "project" };
    expect(repoTargets({ repos: [upper, own], branch: "main", home }).map((t) => [t.ref, t.project])).toEqual([
      ["v0.1", true],
      [undefined, undefined],
    ]);
  });

  test("the project's ref or branch for SKILLS_REPO's repository is said not to be served", () => {
    const team = "https://example.com/team/skills.git";
    const theirs: RepoEntryConfig = { url: `${team}/`, ref: "b".repeat(40), scope: "project" };
    expect(overriddenPins({ repos: [theirs, team], branch: "main" })).toEqual([
      `the project's skillhub.yaml gives ${team}/ ref ${"b".repeat(40)}, but SKILLS_REPO names that repository too, and your setting decides its copy (its default branch): take it out of the project's file or SKILLS_REPO to serve the project's.`,
    ]);
    expect(overriddenPins({ repos: [theirs, team], branch: "main", ref: "v2" })[0]).toContain("its copy (ref v2)");
    // Asking for what SKILLS_REPO's entry serves anyway is no override.
    const same: RepoEntryConfig = { url: team, branch: "main", scope: "project" };
    expect(overriddenPins({ repos: [same, team], branch: "main" })).toEqual([]);
  });
});

describe("a repository folder's label", () => {
  test("is the repository's name and the folder's, in letters, digits, `.`, `_` and `-`: a path cannot forge a line", () => {
    const entry: RepoEntryConfig = {
      url: "https://example.com/team/skills.git",
      path: "skills/a\nevil  0000000  up to date",
    };
    const [target] = repoTargets({ repos: [entry], branch: "main", home });
    expect(target?.label).toBe("skills-a-evil-0000000-up-to-date");
  });

  test("your repository keeps its label in every project: a project's repository of the same name gets the -2", () => {
    const team: RepoEntryConfig = { url: "https://example.com/me/team.git", scope: "user" };
    const theirs: RepoEntryConfig = { url: "https://example.com/them/team.git", scope: "project" };
    const labels = (repos: RepoEntryConfig[]) =>
      repoTargets({ repos, branch: "main", home }).map((t) => [t.spec.url, t.label]);
    // Listed first (as a project's skillhub.yaml's entries are), the project's still comes second in labels only.
    expect(labels([theirs, team])).toEqual([
      [theirs.url, "team-2"],
      [team.url, "team"],
    ]);
    expect(labels([team])).toEqual([[team.url, "team"]]);
  });
});

describe("a copy's folder is one repository's", () => {
  const team = "https://github.com/org/team";
  const evil = "https://evil.example/chosen/team";
  const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");
  // Folder names take 8 hex of the hash, which a project can brute-force; here the evil URL's are made the same.
  const colliding = (text: string) =>
    text.startsWith("https://evil.example") ? `${sha256(team).slice(0, 8)}${sha256(text).slice(8)}` : sha256(text);
  const folder = (dir: string) => dir.slice(join(home, "repos").length + 1);

  test("your repository keeps its folder; a project's whose folder name is the same gets another, and stays the project's", () => {
    // SKILLS_REPO's repository has the project lock's copy, as the project's have; your config file's has
    // SkillHub's own lock's, as a project's has outside any project (no lock: SkillHub's own).
    const cases: [string | RepoEntryConfig, string | undefined][] = [
      [team, "/pa/skillhub.lock"],
      [{ url: team, scope: "user" }, undefined],
    ];
    for (const [yours, lock] of cases) {
      const theirs: RepoEntryConfig = { url: evil, scope: "project" };
      const alone = repoTargets({ repos: [yours], branch: "main", home, lock, hash: colliding });
      const targets = repoTargets({ repos: [theirs, yours], branch: "main", home, lock, hash: colliding });
      const rows = targets.map((t) => ({ url: t.spec.url, project: t.project, folder: folder(t.dir) }));
      expect(rows[0]?.folder).not.toBe(rows[1]?.folder as string);
      expect(rows[1]).toEqual({ url: team, project: undefined, folder: folder(alone[0]?.dir ?? "") });
      expect(rows[0]?.url).toBe(evil);
      expect(rows[0]?.project).toBe(true);
      // Named with the whole hash of its repository (and its lock's 8 hex, as before).
      expect(rows[0]?.folder).toMatch(lock ? /^team-[0-9a-f]{64}-[0-9a-f]{8}$/ : /^team-[0-9a-f]{64}$/);
      // Without the collision, a project's repository keeps its usual folder name.
      const usual = repoTargets({ repos: [theirs, yours], branch: "main", home, lock });
      expect(usual.map((t) => folder(t.dir))).toEqual([
        expect.stringMatching(lock ? /^team-[0-9a-f]{8}-[0-9a-f]{8}$/ : /^team-[0-9a-f]{8}$/),
        folder(repoTargets({ repos: [yours], branch: "main", home, lock })[0]?.dir ?? ""),
      ]);
    }
  });

  test("two folders of one repository, or one repository spelt alike twice, still share what they shared", () => {
    const targets = repoTargets({
      repos: [`${team}.git`, team, { url: team, path: "skills/a" }],
      branch: "main",
      home,
      hash: colliding,
    });
    expect(targets.map((t) => folder(t.dir))).toEqual([
      expect.stringMatching(/^team-[0-9a-f]{8}$/),
      expect.stringMatching(/^team-[0-9a-f]{8}-[0-9a-f]{8}$/),
    ]);
  });
});
