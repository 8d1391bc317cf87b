import { describe, expect, test } from "bun:test";
import { isProjectCandidate, resolveProjectRoot } from "../../src/sources/project-root.ts";

const base = { env: {}, cwd: "/work/app", homeDir: "/home/u" };

describe("resolveProjectRoot", () => {
  test("--project wins over everything", () => {
    expect(
      resolveProjectRoot({ ...base, configured: "/p", env: { CLAUDE_PROJECT_DIR: "/c" }, roots: ["file:///r"] }).dir,
    ).toBe("/p");
  });

  test("then CLAUDE_PROJECT_DIR, then the first file:// root, then the working directory", () => {
    expect(resolveProjectRoot({ ...base, env: { CLAUDE_PROJECT_DIR: "/c" }, roots: ["file:///r"] }).dir).toBe("/c");
    expect(resolveProjectRoot({ ...base, roots: ["https://x", "file:///r/one", "file:///r/two"] })).toEqual({
      dir: "/r/one",
      how: "MCP roots (first file:// root the client reported)",
    });
    expect(resolveProjectRoot(base)).toEqual({ dir: "/work/app", how: "working directory" });
  });

  test("no project when the working directory is /, the home folder or a system folder", () => {
    for (const cwd of ["/", "/home/u", "/usr/local/bin", "/System/Library"]) {
      const root = resolveProjectRoot({ ...base, cwd });
      expect(root.dir).toBeNull();
      expect(root.how).toContain("--project");
    }
    expect(isProjectCandidate("/tmp/project", "/home/u")).toBe(true);
  });
});
