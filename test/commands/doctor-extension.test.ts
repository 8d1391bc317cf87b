import { afterAll, expect, test } from "bun:test";
import { run } from "../../src/cli.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);

test("doctor says which skills the skills extension publishes and why the others are tools-only", async () => {
  const home = tempDir("skillhub-doctor-home-");
  const dir = tempDir("skillhub-doctor-skills-");
  writeSkill(dir, "good-skill", { description: "Published" });
  writeSkill(dir, "Bad_Name", { description: "Refused name" });
  let out = "";
  const code = await run(
    ["doctor", "--skills-dir", dir, "--home", home],
    { HOME: home },
    {
      out: (text: string) => {
        out += text;
      },
      err: () => undefined,
    },
  );
  expect(code).toBe(0);
  expect(out).toContain("Skills extension (skills/list, skill:// resources): 1 published, 1 served by the tools only");
  expect(out).toMatch(/Bad_Name .*must be 1-64 lowercase letters/);
});
