import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { connect, textOf } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/**
 * Folders nested inside `dir` until a path is longer than PATH_MAX (4,096 bytes on Linux). Built inside
 * out, each folder moved into a new parent by a rename of short paths (a path that long cannot be given
 * to mkdir). Returns the chain, relative to `dir`.
 */
function pastPathMax(dir: string): string {
  const name = "n".repeat(250);
  let inner = join(dir, "chain-0");
  write(join(inner, "notes.md"), "deep\n");
  for (let i = 1; i <= 20; i++) {
    const outer = join(dir, `chain-${i}`);
    mkdirSync(outer);
    renameSync(inner, join(outer, name));
    inner = outer;
  }
  renameSync(inner, join(dir, name));
  return Array.from({ length: 21 }, () => name).join("/");
}

async function listed(dirs: { skills: string }) {
  const s = await connect({ flags: { "skills-dir": [dirs.skills] }, hub: { acceptRoots: false } });
  closers.push(s.close);
  const request = (method: string, params: Record<string, unknown> = {}) =>
    s.client.request({ method, params } as never, z.looseObject({}) as never).then(
      (r) => ({ ok: true as const, text: JSON.stringify(r) }),
      (e: Error) => ({ ok: false as const, text: e.message }),
    );
  return { s, request };
}

describe("one broken skill never breaks the listing of the others, and no error names a server path", () => {
  test("a skill with folders nested past PATH_MAX: skills/list, resources/list and the tools still serve every skill", async () => {
    const skills = tempDir("skillhub-broken-");
    writeSkill(skills, "deep");
    const chain = pastPathMax(join(skills, "deep"));
    writeSkill(skills, "fine", { description: "A fine skill" });
    const { s, request } = await listed({ skills });
    const list = await request("skills/list");
    expect(list.ok).toBe(true);
    expect(list.text).toContain("skill://fine/SKILL.md");
    expect(list.text).not.toContain(skills);
    const resources = await request("resources/list");
    expect(resources.ok).toBe(true);
    expect(resources.text).toContain("skill://fine/SKILL.md");
    // The deep skill itself still loads; its unreachable files are simply not listed.
    const loaded = await s.call("load_skill", { skill_name: "deep" });
    expect(loaded.isError).toBeFalsy();
    const far = await s.call("read_skill_file", { skill_name: "deep", file_path: `${chain}/notes.md` });
    expect(far.isError).toBe(true);
    expect(textOf(far)).not.toContain(skills);
  });

  test("a skill that vanished or became unreadable since the scan: the others are listed, searched and loaded", async () => {
    const skills = tempDir("skillhub-broken-");
    writeSkill(skills, "gone", { description: "Invoices gone" });
    writeSkill(skills, "fifo", { description: "Invoices fifo" });
    writeSkill(skills, "dangling", { description: "Invoices dangling" });
    writeSkill(skills, "fine", { description: "Invoices fine" });
    write(join(skills, "fine", "notes.md"), "notes\n");
    const { s, request } = await listed({ skills });
    // After the scan: one folder removed, one SKILL.md swapped for a FIFO, one folder for a dangling link.
    rmSync(join(skills, "gone"), { recursive: true });
    rmSync(join(skills, "fifo", "SKILL.md"));
    Bun.spawnSync(["mkfifo", join(skills, "fifo", "SKILL.md")]);
    rmSync(join(skills, "dangling"), { recursive: true });
    symlinkSync(join(skills, "nowhere"), join(skills, "dangling"));
    const list = await request("skills/list");
    expect(list.ok).toBe(true);
    expect(list.text).toContain("skill://fine/SKILL.md");
    const found = await s.call("search_skills", { query: "invoices" });
    expect(found.isError).toBeFalsy();
    expect(JSON.stringify(found.structuredContent)).toContain('"fine"');
    const flat = await s.call("list_skills", { flat: true, include_body: true });
    expect(flat.isError).toBeFalsy();
    expect(JSON.stringify(flat.structuredContent)).toContain("Instructions for fine.");
    for (const name of ["gone", "fifo", "dangling"]) {
      const refused = await s.call("load_skill", { skill_name: name });
      expect({ name, isError: refused.isError }).toEqual({ name, isError: true });
      expect(textOf(refused)).not.toContain(skills);
    }
    expect(textOf(await s.call("read_skill_file", { skill_name: "fine", file_path: "notes.md" }))).toContain("notes");
  });
});
