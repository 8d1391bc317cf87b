import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigFileEdit } from "../../src/config/config-edit.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";

afterAll(cleanupTemp);

/** `text` as a config file, changed by `change`; the file's text after. */
function edited(text: string, change: (edit: ConfigFileEdit) => void): string {
  const file = write(join(tempDir("skillhub-edit-"), "skillhub.yaml"), text);
  ConfigFileEdit.update(file, " header", undefined, change);
  return readFileSync(file, "utf8");
}

const entry = { url: "file:///srv/team.git", path: "skills" };

describe("a config file changed by add and remove", () => {
  test("an empty [] or {} is written into as a block list, every other line kept", () => {
    expect(edited("# ours\ngit:\n  repos: []\n  branch: main\n", (edit) => edit.setRepo(entry))).toBe(
      "# ours\ngit:\n  repos:\n    - url: file:///srv/team.git\n      path: skills\n  branch: main\n",
    );
    expect(edited("git: {}\n", (edit) => edit.setRepo(entry))).toBe(
      "git:\n  repos:\n    - url: file:///srv/team.git\n      path: skills\n",
    );
    expect(edited("{}\n", (edit) => edit.addDir("vendor/skills"))).toBe("sources:\n  dirs:\n    - vendor/skills\n");
    expect(edited("sources:\n  dirs: []\n", (edit) => edit.addDir("vendor/skills"))).toBe(
      "sources:\n  dirs:\n    - vendor/skills\n",
    );
  });

  test("a list written in flow style with items keeps its style", () => {
    expect(edited("sources:\n  dirs: [a]\n", (edit) => edit.addDir("b"))).toBe("sources:\n  dirs: [ a, b ]\n");
  });

  test("removing the last entry, then adding one, gives the block list a first add gives", () => {
    const first = edited("", (edit) => edit.setRepo(entry));
    const file = write(join(tempDir("skillhub-edit-"), "skillhub.yaml"), first);
    ConfigFileEdit.update(file, " header", undefined, (edit) => edit.removeRepo(0));
    expect(readFileSync(file, "utf8")).toContain("repos: []");
    ConfigFileEdit.update(file, " header", undefined, (edit) => edit.setRepo(entry));
    expect(readFileSync(file, "utf8")).toBe(first);
  });
});
