import { describe, expect, test } from "bun:test";
import { alignColumns } from "../../src/util/columns.ts";

describe("alignColumns", () => {
  test("each column but a row's last fits its longest cell, up to the limit; a longer cell pushes its row only", () => {
    expect(
      alignColumns([
        ["pdf", "claude-scientific-skills", "Extract text."],
        ["git", "team", "Commits."],
      ]),
    ).toEqual(["pdf  claude-scientific-skills  Extract text.", "git  team                      Commits."]);
    // A row's last cell sizes nothing: a shadowed line's long path leaves the label column alone.
    expect(
      alignColumns([
        ["pdf", "team", "Extract."],
        ["team:pdf", "shadowed by /a/very/long/path"],
      ]),
    ).toEqual(["pdf       team  Extract.", "team:pdf  shadowed by /a/very/long/path"]);
    expect(
      alignColumns(
        [
          ["a-very-long-name", "x", "d"],
          ["b", "y", "e"],
        ],
        5,
      ),
    ).toEqual(["a-very-long-name  x  d", "b      y  e"]);
  });
});
