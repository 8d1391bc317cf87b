import { describe, expect, test } from "bun:test";
import { buildSourceList, explicitLabels } from "../../src/sources/source-list.ts";

describe("buildSourceList", () => {
  test("explicit folders, then .agents/.agent project then global, then .claude project then global, then the hub", () => {
    const list = buildSourceList({ dirs: ["/x", "/y"], projectDir: "/p", homeDir: "/h", hubHome: "/h/.skillhub" });
    expect(list.map((s) => [s.label, s.dir, s.location])).toEqual([
      ["x", "/x", "explicit"],
      ["y", "/y", "explicit"],
      ["project", "/p/.agents/skills", "project"],
      ["agent-project", "/p/.agent/skills", "project"],
      ["global", "/h/.agents/skills", "global"],
      ["agent-global", "/h/.agent/skills", "global"],
      ["claude-project", "/p/.claude/skills", "project"],
      ["claude-global", "/h/.claude/skills", "global"],
      ["hub", "/h/.skillhub/skills", "global"],
    ]);
  });

  test("without a project root the project rows are left out; a folder listed twice is scanned once", () => {
    const list = buildSourceList({
      dirs: ["/h/.claude/skills"],
      projectDir: null,
      homeDir: "/h",
      hubHome: "/h/.skillhub",
    });
    expect(list.map((s) => s.label)).toEqual(["skills", "global", "agent-global", "hub"]);
  });

  test("only_dirs keeps the explicit folders; repositories come last", () => {
    const list = buildSourceList({
      dirs: ["/x"],
      onlyDirs: true,
      projectDir: "/p",
      homeDir: "/h",
      hubHome: "/hub",
      repos: [{ label: "team", dir: "/r" }],
    });
    expect(list.map((s) => [s.label, s.location])).toEqual([
      ["x", "explicit"],
      ["team", "remote"],
    ]);
  });
});

describe("the project's own folders are confined to the project", () => {
  test("a folder given once with --skills-dir never renames the project's folders: it takes its parent's name", () => {
    const input = { projectDirs: ["/p/skills"], projectDir: "/p", homeDir: "/h", hubHome: "/h/.skillhub" };
    const label = (list: ReturnType<typeof buildSourceList>, dir: string) => list.find((s) => s.dir === dir)?.label;
    expect(label(buildSourceList({ ...input, dirs: [] }), "/p/skills")).toBe("skills");
    const given = buildSourceList({ ...input, dirs: ["/other/skills"] });
    expect(label(given, "/p/skills")).toBe("skills");
    expect(label(given, "/other/skills")).toBe("other-skills");
    // A project folder given with --skills-dir keeps its label, and leaves its neighbours theirs.
    const two = { ...input, projectDirs: ["/p/a/skills", "/p/b/skills"] };
    const both = buildSourceList({ ...two, dirs: [] });
    const one = buildSourceList({ ...two, dirs: ["/p/a/skills"] });
    expect([label(one, "/p/a/skills"), label(one, "/p/b/skills")]).toEqual([
      label(both, "/p/a/skills"),
      label(both, "/p/b/skills"),
    ]);
    expect(label(both, "/p/b/skills")).toBe("b-skills");
  });

  test("its folders and those its skillhub.yaml adds carry the project root; the user's folders do not", () => {
    const list = buildSourceList({
      dirs: ["/x"],
      projectDirs: ["/p/kit"],
      projectSkills: "skills",
      projectDir: "/p",
      homeDir: "/h",
      hubHome: "/h/.skillhub",
    });
    expect(list.map((s) => [s.label, s.within])).toEqual([
      ["x", undefined],
      ["project-skills", "/p"],
      ["kit", "/p"],
      ["project", "/p"],
      ["agent-project", "/p"],
      ["global", undefined],
      ["agent-global", undefined],
      ["claude-project", "/p"],
      ["claude-global", undefined],
      ["hub", undefined],
    ]);
  });

  test("skillhub.yaml's folders stay confined to the project that named them when a client's roots move the root", () => {
    const list = buildSourceList({
      dirs: [],
      projectDirs: ["/p/kit"],
      projectDirsRoot: "/p",
      projectDir: "/q",
      homeDir: "/h",
      hubHome: "/hub",
    });
    expect(list.filter((s) => s.location === "project").map((s) => [s.label, s.within])).toEqual([
      ["kit", "/p"],
      ["project", "/q"],
      ["agent-project", "/q"],
      ["claude-project", "/q"],
    ]);
  });

  test("a folder the user names outside the project, and a project that is the home folder, are the user's own", () => {
    const outside = buildSourceList({
      dirs: [],
      projectSkills: "/elsewhere/skills",
      projectDir: "/p",
      homeDir: "/h",
      hubHome: "/hub",
    });
    expect(outside.find((s) => s.label === "project-skills")?.within).toBeUndefined();
    const home = buildSourceList({ dirs: [], projectDir: "/h", homeDir: "/h", hubHome: "/hub" });
    expect(home.map((s) => s.within).filter(Boolean)).toEqual([]);
  });
});

describe("explicit folders' labels: their names, whatever the order", () => {
  test("each folder is labelled by its name, the same in any order and beside any other folder", () => {
    const a = buildSourceList({ dirs: ["/w/Team Skills", "/w/pdf"], projectDir: null, homeDir: "/h", hubHome: "/hub" });
    const b = buildSourceList({
      dirs: ["/w/pdf", "/z/other", "/w/Team Skills"],
      projectDir: null,
      homeDir: "/h",
      hubHome: "/hub",
    });
    const label = (list: typeof a, dir: string) => list.find((s) => s.dir === dir)?.label;
    expect(label(a, "/w/Team Skills")).toBe("team-skills");
    expect(label(a, "/w/pdf")).toBe("pdf");
    expect(label(b, "/w/Team Skills")).toBe("team-skills");
    expect(label(b, "/w/pdf")).toBe("pdf");
  });

  test("folders of the same name take their parent's name; fixed labels and repositories' are never taken", () => {
    expect(explicitLabels(["/work/skills", "/team/skills"])).toEqual(["work-skills", "team-skills"]);
    expect(explicitLabels(["/team/skills", "/work/skills"])).toEqual(["team-skills", "work-skills"]);
    expect(explicitLabels(["/a/x/skills", "/b/x/skills"])).toEqual(["x-skills", "x-skills-2"]);
    expect(explicitLabels(["/b/x/skills", "/a/x/skills"])).toEqual(["x-skills-2", "x-skills"]);
    expect(explicitLabels(["/p/global", "/p/team"], new Set(["team"]))).toEqual(["p-global", "p-team"]);
    expect(explicitLabels(["/", "/-x-/"])).toEqual(["folder", "x"]);
  });

  test("a plugin named like a repository is qualified plugin:<name>, so its skills never pass for the repository's", () => {
    const list = buildSourceList({
      dirs: [],
      projectDir: null,
      homeDir: "/h",
      hubHome: "/h/.skillhub",
      repos: [{ label: "team", dir: "/r" }],
      plugins: [
        { label: "plugin:team", dir: "/p/team/skills", location: "global", qualifier: "team" },
        { label: "plugin:other", dir: "/p/other/skills", location: "global", qualifier: "other" },
      ],
    });
    expect(list.slice(-3).map((s) => [s.label, s.qualifier ?? s.label])).toEqual([
      ["team", "team"],
      ["plugin:team", "plugin:team"],
      ["plugin:other", "other"],
    ]);
  });

  test("a folder given twice is one source with its own name", () => {
    const list = buildSourceList({
      dirs: ["/w/skills", "/w/skills"],
      onlyDirs: true,
      projectDir: null,
      homeDir: "/h",
      hubHome: "/hub",
    });
    expect(list.map((s) => s.label)).toEqual(["skills"]);
  });

  test("a project folder also given as --skills-dir keeps its name, as the lock records it", () => {
    const input = { projectDir: "/w/proj", homeDir: "/h", hubHome: "/hub", projectDirs: ["/w/proj/kit"] };
    const alone = buildSourceList({ ...input, dirs: [] });
    const both = buildSourceList({ ...input, dirs: ["/w/proj/kit"] });
    expect(alone.find((s) => s.dir === "/w/proj/kit")?.label).toBe("kit");
    expect(both.filter((s) => s.dir === "/w/proj/kit").map((s) => s.label)).toEqual(["kit"]);
  });
});
