import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { run } from "../../src/cli.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);

/** What `skillhub doctor` prints over these skills folders; it must exit 0. */
async function doctor(home: string, dirs: string[], options: string[] = []): Promise<string> {
  let out = "";
  const code = await run(
    ["doctor", ...dirs.flatMap((dir) => ["--skills-dir", dir]), "--home", home, ...options],
    { HOME: home },
    {
      out: (text: string) => {
        out += text;
      },
      err: () => undefined,
    },
  );
  expect(code).toBe(0);
  return out;
}

test("doctor says which skills the skills extension publishes and why the others are tools-only", async () => {
  const home = tempDir("skillhub-doctor-home-");
  const dir = tempDir("skillhub-doctor-skills-");
  writeSkill(dir, "good-skill", { description: "Published" });
  writeSkill(dir, "Bad_Name", { description: "Refused name" });
  const out = await doctor(home, [dir]);
  expect(out).toContain("Skills extension (skills/list, skill:// resources): 1 published, 1 served by the tools only");
  expect(out).toMatch(/Bad_Name .*must be 1-64 lowercase letters/);
});

test("doctor names each URI a tree node and a skill would share, and which one it serves", async () => {
  const home = tempDir("skillhub-doctor-home-");
  const dir = tempDir("skillhub-doctor-skills-");
  const tree = tempDir("skillhub-doctor-tree-");
  writeSkill(dir, "ops", { description: "An Agent Skill named like a tree's folder" });
  write(join(dir, "ops/release.md"), "notes\n");
  write(join(dir, "ops/deploy/run.sh"), "echo\n");
  writeNode(tree, "_root.md", { keywords: ["root"] });
  writeNode(tree, "ops/release.md", { keywords: ["release"] });
  writeNode(tree, "ops/deploy.md", { keywords: ["deploy"] });
  const out = await doctor(home, [dir, tree]);
  expect(out).toContain("URIs two skills would share (rename one to give each its own):");
  expect(out).toContain(
    `  skill://ops/release.md is file release.md of skill 'ops', not the own file of tree node 'ops/release' (${join(tree, "ops/release.md")}), which load_skill and get_skill serve by name`,
  );
  expect(out).toContain(
    "  skill://ops/deploy/ is tree node 'ops/deploy', not folder deploy/ of skill 'ops', whose files read_skill_file reads by path",
  );
});

test("doctor shows the first 10 lines of a long list and how to see every one; --all shows every one", async () => {
  const home = tempDir("skillhub-doctor-home-");
  const dir = tempDir("skillhub-doctor-skills-");
  for (let i = 0; i < 14; i++) writeSkill(dir, `Bad_${i}`, { description: `Refused name ${i}` });
  const short = await doctor(home, [dir]);
  expect(short).toContain(
    "Skills extension (skills/list, skill:// resources): 0 published, 14 served by the tools only",
  );
  expect(short.match(/must be 1-64 lowercase letters/g)?.length).toBe(10);
  expect(short).toContain("  … and 4 more skills (`skillhub doctor --all` lists every one).");
  expect(short.match(/ warning invalid-name /g)?.length).toBe(10);
  expect(short).toContain("  … and 4 more warnings (`skillhub doctor --all` lists every one).");
  // The rest of the report still follows.
  expect(short).toContain("Configuration:");

  const every = await doctor(home, [dir], ["--all"]);
  expect(every.match(/must be 1-64 lowercase letters/g)?.length).toBe(14);
  expect(every.match(/ warning invalid-name /g)?.length).toBe(14);
  expect(every).not.toContain("more warnings");
});
