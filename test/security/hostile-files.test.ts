import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, rmSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { listSkillFiles } from "../../src/sources/skill-files.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { sessions, textOf } from "../helpers/hub.ts";
import { notRoot } from "../helpers/runs-here.ts";
import { writeNode } from "../helpers/tree.ts";

// Whatever happens to a file after the scan, a tool serves bytes from inside the
// skill, read once, bounded, or a clear error with a code — never a file from elsewhere, never a hang.

afterAll(cleanupTemp);
const open = sessions();
const CANARY = "CANARY-OUTSIDE-7f3a";

const errorCode = (r: CallToolResult) =>
  (r.structuredContent as { error?: { code?: string } } | undefined)?.error?.code;

function world() {
  const outside = tempDir("skillhub-outside-");
  const secret = write(join(outside, "secret.txt"), `${CANARY}\n`);
  const skills = tempDir("skillhub-hostile-");
  writeSkill(skills, "victim", { body: "# victim\n\nSafe body.\n" });
  write(join(skills, "victim/notes.txt"), "inside\n");
  return { outside, secret, skills };
}

describe("a SKILL.md replaced after the scan", () => {
  test("by a symlink to a file outside the skill: PATH_OUTSIDE_SKILL from every tool, never its bytes", async () => {
    const { secret, skills } = world();
    const { call, hub } = await open({ flags: { "skills-dir": [skills] }, env: { SKILLHUB_TOOLS: "all" } });
    const file = join(skills, "victim/SKILL.md");
    rmSync(file);
    symlinkSync(secret, file);
    const first = await call("skill", { name: "victim" });
    expect(JSON.stringify(first)).not.toContain(CANARY);
    expect(errorCode(first)).toBe("PATH_OUTSIDE_SKILL");
    expect(textOf(first)).toContain("rescanned");
    // The error started a rescan, which drops the skill (its SKILL.md is now a link): either answer is fine.
    const second = await call("load_skill", { skill_name: "victim" });
    expect(JSON.stringify(second)).not.toContain(CANARY);
    expect(["PATH_OUTSIDE_SKILL", "SKILL_NOT_FOUND"]).toContain(errorCode(second) ?? "");
    const sk = await open({ flags: { "skills-dir": [skills] }, env: { SKILLHUB_TOOLS: "sk" } });
    expect(JSON.stringify(await sk.call("skills.list", { includeBody: true }))).not.toContain(CANARY);
    expect(JSON.stringify(await sk.call("skills.search", { query: "canary" }))).not.toContain(CANARY);
    const searched = await call("search_skills", { query: "victim" });
    expect(JSON.stringify(searched)).not.toContain(CANARY);
    // The error triggered a rescan: the catalog no longer serves the skill from a link.
    await hub.refresher.rescan("test");
    expect(hub.catalog.get("victim")).toBeUndefined();
  });

  test("by a FIFO: an error at once, no blocked call", async () => {
    const { skills } = world();
    const { call } = await open({ flags: { "skills-dir": [skills] } });
    const file = join(skills, "victim/SKILL.md");
    rmSync(file);
    expect(Bun.spawnSync(["mkfifo", file]).exitCode).toBe(0);
    const result = await call("load_skill", { skill_name: "victim" });
    expect(errorCode(result)).toBe("NOT_A_REGULAR_FILE");
  });

  test("grown past 1 MiB: FILE_TOO_LARGE, not 50 MB of text", async () => {
    const { skills } = world();
    const { call } = await open({ flags: { "skills-dir": [skills] } });
    appendFileSync(join(skills, "victim/SKILL.md"), "x".repeat(2 * 1_048_576));
    const result = await call("skill", { name: "victim" });
    expect(errorCode(result)).toBe("FILE_TOO_LARGE");
    expect(JSON.stringify(result).length).toBeLessThan(10_000);
  });

  test("edited in place (same skill, new text): the new text is served, read once", async () => {
    const { skills } = world();
    const { call } = await open({ flags: { "skills-dir": [skills] } });
    writeSkill(skills, "victim", { body: "# victim\n\nEdited body.\n" });
    const result = await call("load_skill", { skill_name: "victim" });
    expect((result.structuredContent as { instructions: string }).instructions).toContain("Edited body.");
  });
});

describe("load_skill's file list", () => {
  test("through a linked skills folder: a link inside the skill is listed, a link out is not", async () => {
    const { outside, secret, skills } = world();
    // The skills folder as a client names it is a link: the skill's real folder is found by the read of
    // its SKILL.md, and the listing confines links to that real folder, not to the name.
    const linked = join(outside, "linked-skills");
    symlinkSync(skills, linked);
    symlinkSync(join(skills, "victim/notes.txt"), join(skills, "victim/alias.txt"));
    symlinkSync(secret, join(skills, "victim/leak.txt"));
    const { call } = await open({ flags: { "skills-dir": [linked] } });
    for (let round = 0; round < 2; round++) {
      const result = await call("load_skill", { skill_name: "victim" });
      const data = result.structuredContent as { path: string; files: { path: string; size: number }[] };
      expect(data.path).toBe(join(linked, "victim"));
      expect(data.files).toEqual([
        { path: "alias.txt", size: 7 },
        { path: "notes.txt", size: 7 },
      ]);
      expect(JSON.stringify(result)).not.toContain(CANARY);
    }
  });
});

describe("load_skill's file list from the scan's listings", () => {
  test("a subfolder swapped for a link out after the scan, its folder's mtime put back: not entered", async () => {
    const { outside, skills } = world();
    mkdirSync(join(skills, "victim/sub"));
    write(join(skills, "victim/sub/a.txt"), "aaa");
    const folder = join(skills, "victim");
    // A whole second, so that putting it back is exact wherever timestamps are finer.
    const mtime = 1_700_000_000;
    utimesSync(folder, mtime, mtime);
    const { call, hub } = await open({ flags: { "skills-dir": [skills] } });
    rmSync(join(folder, "sub"), { recursive: true });
    symlinkSync(outside, join(folder, "sub"));
    utimesSync(folder, mtime, mtime);
    // The mtime is put back, the ctime cannot be: the scan's listing no longer holds.
    expect(hub.knownEntries(folder)).toBeUndefined();
    const result = await call("load_skill", { skill_name: "victim" });
    expect(JSON.stringify(result)).not.toContain("secret.txt");
    expect((result.structuredContent as { files: unknown[] }).files).toEqual([{ path: "notes.txt", size: 7 }]);
  });

  test("a kept listing older than the swap (made in the same clock tick) still enters only real folders", () => {
    const { outside, skills } = world();
    const folder = join(skills, "victim");
    symlinkSync(outside, join(folder, "sub"));
    // As the scan listed it before the swap: `sub` a folder.
    const stale = [
      { name: "SKILL.md", kind: "file" as const },
      { name: "notes.txt", kind: "file" as const },
      { name: "sub", kind: "dir" as const },
    ];
    const list = listSkillFiles(folder, { knownEntries: (dir) => (dir === folder ? stale : undefined) });
    expect(list.folders).toEqual([]);
    expect(JSON.stringify(list)).not.toContain("secret.txt");
  });
});

describe("read_skill_file and get_asset on hostile files", () => {
  test("a file swapped for a link out, a FIFO, a folder, a missing file: codes, not bytes or INTERNAL_ERROR", async () => {
    const { secret, skills } = world();
    symlinkSync(secret, join(skills, "victim/link.txt"));
    expect(Bun.spawnSync(["mkfifo", join(skills, "victim/pipe")]).exitCode).toBe(0);
    mkdirSync(join(skills, "victim/folder"));
    const { call } = await open({ flags: { "skills-dir": [skills] } });
    const read = (file_path: string) => call("read_skill_file", { skill_name: "victim", file_path });
    expect(errorCode(await read("link.txt"))).toBe("PATH_OUTSIDE_SKILL");
    expect(errorCode(await read("pipe"))).toBe("NOT_A_REGULAR_FILE");
    expect(errorCode(await read("folder"))).toBe("FILE_NOT_FOUND");
    expect(errorCode(await read("nope.txt"))).toBe("FILE_NOT_FOUND");
    expect(errorCode(await read("../../secret.txt"))).toBe("PATH_OUTSIDE_SKILL");
    expect(errorCode(await read("/etc/passwd"))).toBe("PATH_OUTSIDE_SKILL");
    const ok = await read("notes.txt");
    expect((ok.structuredContent as { content: string }).content).toBe("inside\n");
    for (const r of [await read("link.txt"), await read("pipe")]) expect(JSON.stringify(r)).not.toContain(CANARY);
  });

  test.skipIf(!notRoot())("an unreadable file is PERMISSION_DENIED, without a stack trace", async () => {
    const { skills } = world();
    const file = write(join(skills, "victim/locked.txt"), "no\n");
    Bun.spawnSync(["chmod", "000", file]);
    const { call } = await open({ flags: { "skills-dir": [skills] } });
    const result = await call("read_skill_file", { skill_name: "victim", file_path: "locked.txt" });
    expect(errorCode(result)).toBe("PERMISSION_DENIED");
    expect(textOf(result)).not.toContain("    at ");
  });

  test("a tree node and its asset swapped for links out after the scan: never served", async () => {
    const { secret, skills } = world();
    writeNode(skills, "_root.md", { keywords: ["root"], extra: "assets:\n  - file: guide.md\n    type: reference" });
    write(join(skills, "_root/guide.md"), "guide\n");
    writeNode(skills, "deploy.md", { keywords: ["deploy", "release"] });
    const { call } = await open({ flags: { "skills-dir": [skills] }, env: { SKILLHUB_TOOLS: "all" } });
    rmSync(join(skills, "_root/guide.md"));
    symlinkSync(secret, join(skills, "_root/guide.md"));
    rmSync(join(skills, "deploy.md"));
    symlinkSync(secret, join(skills, "deploy.md"));
    const asset = await call("get_asset", { skill_path: "_root", file: "guide.md" });
    expect(errorCode(asset)).toBe("PATH_OUTSIDE_SKILL");
    for (const result of [
      asset,
      await call("get_skill", { context: "deploy release" }),
      await call("load_skill", { skill_name: "deploy" }),
      await call("list_skills", { include_body: true }),
    ])
      expect(JSON.stringify(result)).not.toContain(CANARY);
  });
});

describe("the scan on hostile trees", () => {
  test("FIFOs and links to devices are skipped with a diagnostic; the scan ends and serves the rest", async () => {
    const skills = tempDir("skillhub-hostile-scan-");
    writeSkill(skills, "fine");
    mkdirSync(join(skills, "fifo-skill"));
    expect(Bun.spawnSync(["mkfifo", join(skills, "fifo-skill/SKILL.md")]).exitCode).toBe(0);
    expect(Bun.spawnSync(["mkfifo", join(skills, "node.md")]).exitCode).toBe(0);
    symlinkSync("/dev/zero", join(skills, "zero.md"));
    symlinkSync("/dev/stdin", join(skills, "stdin.md"));
    const { hub } = await open({ flags: { "skills-dir": [skills] } });
    expect(hub.catalog.get("fine")).toBeDefined();
    const special = hub.catalog.diagnostics.filter((d) => d.code === "special-file").map((d) => d.file);
    expect(special.sort()).toEqual(
      [
        join(skills, "fifo-skill/SKILL.md"),
        join(skills, "node.md"),
        join(skills, "stdin.md"),
        join(skills, "zero.md"),
      ].sort(),
    );
  });
});
