import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { configValues } from "../../../src/refresh/git/git-config-file.ts";
import { cleanupTemp, tempDir, write } from "../../helpers/fs.ts";
import { GIT_ENV } from "../../helpers/git.ts";

afterAll(cleanupTemp);

/** What git itself reads as `key` in a config file holding `text`: its values, or undefined when it refuses the file. */
function gitReads(text: string, key: string): string[] | undefined {
  const file = write(join(tempDir("skillhub-gitconfig-"), "config"), text);
  const proc = Bun.spawnSync(["git", "config", "--file", file, "-z", "--get-all", key], {
    env: GIT_ENV,
    stdout: "pipe",
    stderr: "pipe",
  });
  // 1: the key is not there; anything else is a file git will not read.
  if (proc.exitCode === 1) return [];
  if (proc.exitCode !== 0) return undefined;
  return proc.stdout.toString().split("\0").slice(0, -1);
}

const ORIGIN = "remote.origin.url";

describe("a copy's .git/config is read as git reads it", () => {
  const cases: [string, string][] = [
    ["as git remote add writes it", '[core]\n\tbare = false\n[remote "origin"]\n\turl = file:///srv/team.git\n'],
    ["the old dotted header", "[remote.origin]\n\turl = file:///srv/team.git\n"],
    ["the old dotted header, in capitals", "[Remote.ORIGIN]\n\turl = file:///srv/team.git\n"],
    ["section and key in capitals", '[REMOTE "origin"]\n\tURL = file:///srv/team.git\n'],
    ["another subsection's case", '[remote "Origin"]\n\turl = file:///srv/team.git\n'],
    ["a quoted value with a comment sign", '[remote "origin"]\n\turl = "file:///srv/a#b.git" ; note\n'],
    ["a comment after the value", '[remote "origin"]\n\turl = file:///srv/team.git # the team\n'],
    ["a continued line", '[remote "origin"]\n\turl = file:///srv/te\\\nam.git\n'],
    ["escapes", '[remote "origin"]\n\turl = "file:///srv/a\\"b\\\\c.git"\n'],
    ["blanks around and inside", '[remote "origin"]\n\turl =   file:///srv/a  b.git   \n'],
    ["CRLF line ends", '[remote "origin"]\r\n\turl = file:///srv/team.git\r\n'],
    ["a byte-order mark", '\uFEFF[remote "origin"]\n\turl = file:///srv/team.git\n'],
    ["a key on the header's line", '[remote "origin"] url = file:///srv/team.git\n'],
    ["two values", '[remote "origin"]\n\turl = file:///srv/team.git\n\turl = file:///srv/other.git\n'],
    ["the section twice", '[remote "origin"]\n\turl = a\n[core]\n\tbare = false\n[remote "origin"]\n\turl = b\n'],
    ["a key without a value", '[remote "origin"]\n\turl\n'],
    ["another remote only", '[remote "upstream"]\n\turl = file:///srv/team.git\n'],
    ["an escaped subsection", '[remote "or\\igin"]\n\turl = file:///srv/team.git\n'],
    ["no final newline", '[remote "origin"]\n\turl = file:///srv/team.git'],
    ["an include, not followed", '[include]\n\tpath = /etc/elsewhere\n[remote "origin"]\n\turl = x\n'],
    ["an unknown escape", '[remote "origin"]\n\turl = file:///srv/a\\qb.git\n'],
    ["a quote left open", '[remote "origin"]\n\turl = "file:///srv/team.git\n'],
    ["a header left open", '[remote "origin"\n\turl = file:///srv/team.git\n'],
    ["a key that starts with a digit", '[remote "origin"]\n\t1url = x\n'],
    ["a value without its =", '[remote "origin"]\n\turl file:///srv/team.git\n'],
    ["an empty file", ""],
    // git's blanks are space, tab, CR and LF only: a vertical tab or a form feed is part of the value.
    ["a vertical tab and a form feed around the value", '[remote "origin"]\n\turl = \vfile:///srv/team.git\f\n'],
    ["a form feed before a key", '[remote "origin"]\n\f\turl = file:///srv/team.git\n'],
    ["a vertical tab before a subsection", '[remote\v"origin"]\n\turl = file:///srv/team.git\n'],
    ["Unicode blanks after the value", '[remote "origin"]\n\turl = file:///srv/team.git\u00a0\u3000\n'],
  ];

  test.each(cases)("%s", (_, text) => {
    expect(configValues(text, ORIGIN)).toEqual(gitReads(text, ORIGIN));
  });

  test("the cases include files git refuses and keys it does not find", () => {
    const read = cases.map(([, text]) => gitReads(text, ORIGIN));
    expect(read.filter((values) => values === undefined).length).toBeGreaterThan(3);
    expect(read.filter((values) => values?.length === 0).length).toBeGreaterThan(2);
  });
});
