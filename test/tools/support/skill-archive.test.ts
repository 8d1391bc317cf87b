import { afterAll, expect, test } from "bun:test";
import { mkdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import type { Skill } from "../../../src/skills/skill.ts";
import {
  type ArchiveContents,
  type ArchiveRead,
  archiveContents,
  readArchiveFile,
} from "../../../src/tools/support/skill-archive.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../../helpers/fs.ts";
import { testHub } from "../../helpers/hub.ts";

afterAll(cleanupTemp);

test("an unchanged skill's archive version costs stats only; a changed file or a new folder gives a new version, a touched file not", async () => {
  const dir = tempDir("skillhub-archive-version-");
  writeSkill(dir, "kit", { description: "A kit" });
  write(join(dir, "kit/scripts/run.sh"), "echo hi\n");
  write(join(dir, "kit/references/guide.md"), "A guide.\n");
  const { hub } = testHub({ flags: { "skills-dir": [dir] }, hub: { acceptRoots: false } });
  void hub.start();
  await hub.ready;
  const ctx = { deps: hub, session: { clientName: () => undefined, remote: true, usage: hub.usage, client: "test" } };
  const reads: string[] = [];
  const counting: ArchiveRead = (file, c, max) => {
    reads.push(file.path);
    return readArchiveFile(file, c, max);
  };
  const version = () => {
    const contents: ArchiveContents = archiveContents(hub.catalog.get("kit") as Skill, ctx, counting);
    if (!contents.ok) throw new Error(contents.reason);
    return contents.version;
  };
  const first = version();
  expect(reads.sort()).toEqual(["SKILL.md", "references/guide.md", "scripts/run.sh"]);
  reads.length = 0;
  expect(version()).toBe(first);
  expect(reads).toEqual([]);
  // Touched, not changed: read again (its stamp changed), the same version.
  utimesSync(join(dir, "kit/references/guide.md"), new Date("2030-01-01"), new Date("2030-01-01"));
  expect(version()).toBe(first);
  expect(reads.length).toBe(3);
  reads.length = 0;
  write(join(dir, "kit/references/guide.md"), "A guide, revised.\n");
  const changed = version();
  expect(changed).not.toBe(first);
  expect(reads.length).toBe(3);
  // An empty folder is part of what is served: a new version.
  mkdirSync(join(dir, "kit/data"));
  expect(version()).not.toBe(changed);
  hub.close();
});
