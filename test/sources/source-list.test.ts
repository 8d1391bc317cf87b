import { describe, expect, test } from "bun:test";
import { buildSourceList } from "../../src/sources/source-list.ts";

describe("buildSourceList (DESIGN §3)", () => {
  test("explicit folders, then .agents/.agent project then global, then .claude project then global, then the hub", () => {
    const list = buildSourceList({ dirs: ["/x", "/y"], projectDir: "/p", homeDir: "/h", hubHome: "/h/.skillhub" });
    expect(list.map((s) => [s.label, s.dir, s.location])).toEqual([
      ["dir1", "/x", "explicit"],
      ["dir2", "/y", "explicit"],
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
    expect(list.map((s) => s.label)).toEqual(["dir1", "global", "agent-global", "hub"]);
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
      ["dir1", "explicit"],
      ["team", "remote"],
    ]);
  });
});
