import { afterAll, describe, expect, test } from "bun:test";
import { repoAuth } from "../../../src/refresh/git/git-auth.ts";
import { GitSync } from "../../../src/refresh/git/git-sync.ts";
import {
  carriesCredentials,
  parseRepo,
  repoIdentity,
  sameRepository,
  scrub,
  withoutCredentials,
} from "../../../src/refresh/git/git-url.ts";
import { createMemoryLogger } from "../../../src/util/logger.ts";
import { cleanupTemp, tempDir } from "../../helpers/fs.ts";

afterAll(cleanupTemp);

describe("repository URLs", () => {
  test("name and slug: readable, stable, and the same for equivalent URLs", () => {
    const a = parseRepo("https://github.com/Acme/Skills-Content.git");
    expect(a).toMatchObject({ url: "https://github.com/Acme/Skills-Content.git", name: "skills-content", https: true });
    expect(a.slug).toMatch(/^skills-content-[0-9a-f]{8}$/);
    expect(parseRepo("https://GitHub.com/Acme/Skills-Content/").slug).toBe(a.slug);
    expect(parseRepo("https://github.com/other/skills-content.git").slug).not.toBe(a.slug);
    expect(parseRepo("git@github.com:acme/skills.git")).toMatchObject({
      name: "skills",
      https: false,
      url: "git@github.com:acme/skills.git",
    });
    expect(parseRepo("file:///srv/git/team.git")).toMatchObject({ name: "team", https: false });
    expect(parseRepo("/srv/git/Team Skills.git").name).toBe("team-skills");
  });

  test("credentials in an https URL are moved out of it and into a header scoped to its origin", () => {
    const spec = parseRepo("https://x-access-token:s3cr3t%2Fvalue@github.com/acme/skills.git");
    expect(spec.url).toBe("https://github.com/acme/skills.git");
    expect(spec.credentials).toEqual({ username: "x-access-token", password: "s3cr3t/value" });
    const auth = repoAuth(spec, "ignored-when-the-url-has-credentials");
    expect(auth.config).toEqual([
      {
        key: "http.https://github.com/.extraHeader",
        value: `Authorization: Basic ${Buffer.from("x-access-token:s3cr3t/value").toString("base64")}`,
      },
    ]);
    expect(auth.secrets).toContain("s3cr3t/value");
  });

  test("GITHUB_TOKEN goes to https repositories only", () => {
    expect(repoAuth(parseRepo("https://github.com/a/b.git"), "tok-123456").config).toHaveLength(1);
    expect(repoAuth(parseRepo("http://example.com/a/b.git"), "tok-123456").config).toEqual([]);
    expect(repoAuth(parseRepo("git@github.com:a/b.git"), "tok-123456").config).toEqual([]);
    expect(repoAuth(parseRepo("https://github.com/a/b.git"), undefined).config).toEqual([]);
  });

  test("a project's repository gets no token and only the plain transports; the user's own keeps git's policy", () => {
    const project = repoAuth(parseRepo("https://github.com/a/b.git"), "tok-123456", true);
    expect(project.config).toEqual([]);
    expect(project.env).toEqual({ GIT_ALLOW_PROTOCOL: "file:git:http:https:ssh" });
    expect(repoAuth(parseRepo("codecommit::us-east-1://skills"), "tok-123456").env).toBeUndefined();
  });

  test("no spelling keeps a credential in the URL shown, logged and stored", () => {
    for (const [raw, shown] of [
      ["codecommit::https://u:TOKEN@h/r", "codecommit::https://h/r"],
      ["git+https://TOKEN@h/x", "git+https://h/x"],
      ["ssh://git:TOKEN'x@h/x.git#v1", "ssh://git@h/x.git#v1"],
      ["u:TOKEN@h:/srv/x.git", "u@h:/srv/x.git"],
    ]) {
      expect(carriesCredentials(raw as string), raw).toBe(true);
      expect(withoutCredentials(raw as string)).toBe(shown as string);
      expect(parseRepo(raw as string).url).not.toContain("TOKEN");
    }
    expect(carriesCredentials("ssh://git@h/x.git")).toBe(false);
    expect(carriesCredentials("https://h/a@b/c.git")).toBe(false);
    // What is found is taken out, even when `://` comes later in an scp-like address.
    for (const url of ["a:b@h:x://y", "x::a:b@h:x://y"])
      expect(carriesCredentials(withoutCredentials(url))).toBe(false);
  });

  test("hostile spellings end: a Windows path that looks scp-like, thousands of helper prefixes", () => {
    for (const url of ["C:\\repo@v2:x", "C:\\a:b@h:p"]) {
      expect(parseRepo(url).url).toBe(url);
      expect(withoutCredentials(url)).toBe(url);
    }
    expect(parseRepo("x::C:\\a@b:c").url).not.toContain("\\a");
    const nested = `${"a::".repeat(30_000)}https://TOKEN@h/x`;
    expect(parseRepo(nested).url).toBe(`${"a::".repeat(30_000)}https://h/x`);
    expect(carriesCredentials(nested)).toBe(true);
    expect(repoIdentity(nested)).toBe(`helper:${"a::".repeat(30_000)}//h/x`);
  });

  test("scrub hides secrets and URL passwords", () => {
    expect(scrub("fatal: https://u:pw@host/x and tok-123456 again tok-123456", ["tok-123456"])).toBe(
      "fatal: https://***@host/x and *** again ***",
    );
  });
});

describe("which URLs name the same repository", () => {
  const team = "https://github.com/org/team";

  test("every transport, the owner's case, www., doubled slashes and default ports name one GitHub repository", () => {
    for (const spelt of [
      "git@github.com:org/team.git",
      "ssh://git@github.com/org/team",
      "ssh://git@github.com:22/org/team",
      "git+ssh://git@github.com/org/team",
      "ssh+git://github.com/org/team",
      "git+https://github.com/org/team",
      "http://github.com/org/team",
      "git://github.com/org/team",
      "https://github.com/ORG/team",
      "https://github.com/org/Team.GIT",
      "https://github.com/org//team",
      "https://www.github.com/org/team",
      "https://GitHub.com./org/team/",
      "https://github.com:443/org/team?tab=readme#top",
      "https://x-access-token:TOKEN@github.com/org/te%61m",
      "GIT@GitHub.com:Org//Team.git/",
    ]) {
      expect(sameRepository(spelt, team), spelt).toBe(true);
      expect(repoIdentity(spelt), spelt).toBe(repoIdentity(team));
    }
    for (const host of ["gitlab.com", "bitbucket.org", "codeberg.org"])
      expect(sameRepository(`git@${host}:Org/Team.git`, `https://${host}/org/team`), host).toBe(true);
  });

  test("a local repository is the same as a file:// URL or a path with `.`, `..` and doubled slashes", () => {
    for (const spelt of ["file:///srv/git/team.git", "file://localhost/srv/git/team", "/srv//git/./x/../team.git/"])
      expect(sameRepository(spelt, "/srv/git/team.git"), spelt).toBe(true);
  });

  test("distinct repositories are never taken for one", () => {
    for (const other of [
      "https://github.com/org/team2",
      "https://github.com/org/tea",
      "https://github.com/org2/team",
      "https://github.com/org/team/tree/main",
      "https://gitlab.com/org/team",
      "git@gitlab.com:org/team.git",
      "https://example.com/github.com/org/team",
      "https://github.com.example.com/org/team",
      "https://github.com:8443/org/team",
      "ssh://git@github.com:2222/org/team",
      "https://github.com/org%2Fteam",
      "codecommit::https://github.com/org/team",
      "ftp://github.com/org/team",
      "file:///github.com/org/team",
      "github.com/org/team",
    ])
      expect(sameRepository(other, team), other).toBe(false);
    // Elsewhere a path's case, a user's home and a relative path are kept as written.
    expect(sameRepository("https://example.com/ORG/team", "https://example.com/org/team")).toBe(false);
    expect(sameRepository("ssh://example.com/~ana/team", "ssh://example.com/~bob/team")).toBe(false);
    expect(sameRepository("https://example.com:8080/org/team", "https://example.com/org/team")).toBe(false);
    expect(sameRepository("/srv/git/team", "/srv/git/team2")).toBe(false);
    expect(sameRepository("/srv/git/Team", "/srv/git/team")).toBe(false);
    expect(sameRepository("srv/git/team", "/srv/git/team")).toBe(false);
    expect(sameRepository("file://nas/srv/git/team", "/srv/git/team")).toBe(false);
    expect(sameRepository("file:///srv/git/a%2Fteam", "/srv/git/a/team")).toBe(false);
    // A remote helper's address is never another kind's, whatever it reads like.
    expect(sameRepository("file::/srv/git/team", ":file:/srv/git/team")).toBe(false);
    // git keeps a blank other than space, tab, CR and LF at a URL's end as part of it: another path.
    for (const blank of ["\u3000", "\u00a0"]) expect(sameRepository(`${team}${blank}`, team), blank).toBe(false);
    for (const blank of ["\u3000", "\u00a0", "\v", "\f"])
      expect(sameRepository(`/srv/git/team${blank}`, "/srv/git/team"), JSON.stringify(blank)).toBe(false);
    expect(sameRepository(" /srv/git/team\t\r\n", "/srv/git/team")).toBe(true);
    // Only ASCII letters fold: a Kelvin sign lower-cases to `k` in JavaScript, but names another path.
    expect(sameRepository("https://github.com/org/te\u212Aam", "https://github.com/org/tekam")).toBe(false);
    expect(sameRepository("git@github.com:org/s\u212Aills.git", "git@github.com:org/skills.git")).toBe(false);
    expect(sameRepository("git@GIT\u212A.example:org/x", "git@gitk.example:org/x")).toBe(false);
  });

  test("two URLs whose copies share a folder are always one repository, whatever their scheme", () => {
    // Security: entries of one copy folder are synced once (repo-targets.ts), so a project's entry that shared
    // your copy's folder without being your entry would take its place.
    const urls = [
      "file://NAS/srv/team.git",
      "file://nas/srv/team/",
      "ftp://Example.com/org/team.git",
      "ftp://example.com/org/team/",
      "https://u:TOKEN@[bad/org/team",
      "https://[bad/org/team",
      "codecommit::https://h/org/team",
      "CODECOMMIT::https://h/org/team/",
      "Git@GitHub.com:org/team.git",
      "ssh://git@github.com/org/team/",
    ];
    let shared = 0;
    for (const a of urls)
      for (const b of urls) {
        if (a === b || parseRepo(a).slug !== parseRepo(b).slug) continue;
        shared++;
        expect(sameRepository(a, b), `${a} ${b}`).toBe(true);
      }
    expect(shared).toBe(10);
  });

  test("copies keep their folders: the slug that names them is not changed by what names one repository", () => {
    expect(parseRepo(team).slug).toBe("team-a4b89a85");
    expect(parseRepo("git@github.com:org/team.git").slug).toBe("team-f4bd5cd5");
    expect(parseRepo("file:///srv/git/team.git").slug).toBe("team-973ec149");
  });
});

describe("GitSync configuration", () => {
  const base = { home: "/tmp/h", logger: createMemoryLogger(), intervalMs: 0 };

  test("labels are unique and never take a built-in source label; a URL starting with '-' or a bad branch is refused", () => {
    const sync = new GitSync({
      ...base,
      branch: "main",
      repos: [
        "https://a.example/x/hub.git",
        "https://b.example/y/hub.git",
        "https://c.example/dir1.git",
        "https://d.example/z/project-skills.git",
      ],
    });
    expect(sync.targets.map((t) => t.label)).toEqual(["repo-hub", "repo-hub-2", "dir1", "repo-project-skills"]);
    expect(() => new GitSync({ ...base, branch: "main", repos: ["--upload-pack=touch /tmp/x"] })).toThrow(
      'Invalid configuration: SKILLS_REPO / repos entry "--upload-pack=touch /tmp/x": expected a git URL, not an option.',
    );
    // A bad entry is named without the credentials its URL holds.
    const entry = { url: "https://ana:s3cr3t@a.example/x.git", branch: "a..b" };
    expect(() => new GitSync({ ...base, branch: "main", repos: [entry] })).toThrow(
      'repos entry "https://***@a.example/x.git" branch',
    );
    expect(() => new GitSync({ ...base, branch: "a..b", repos: [] })).toThrow("SKILLS_BRANCH");
    expect(() => new GitSync({ ...base, branch: "-x", repos: [] })).toThrow("SKILLS_BRANCH");
    expect(new GitSync({ ...base, branch: "release/2.x", repos: [] }).targets).toEqual([]);
  });

  test("no git executable: an error that says to install git", async () => {
    const sync = new GitSync({
      ...base,
      home: tempDir(),
      branch: "main",
      repos: ["https://example.com/a.git"],
      runner: { git: "git-does-not-exist-skillhub" },
    });
    const outcome = await sync.refresh("test");
    expect(outcome.repos[0]?.error).toMatchObject({
      code: "GIT_NOT_FOUND",
      message: expect.stringContaining("install git"),
    });
  });
});
