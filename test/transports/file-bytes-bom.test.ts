import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { httpClient } from "../helpers/clients.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { httpHub } from "../helpers/hub.ts";

/**
 * A file's own bytes are served as they are, a leading byte-order mark included, by every way of
 * fetching it: read_skill_file (whose offsets count bytes), get_asset and resources/read (whose text a
 * skills-extension host checks against the published digest of the bytes).
 */
afterAll(cleanupTemp);
const closers = closeAfterEach();

const BOM = "\uFEFF";

async function remote() {
  const skills = tempDir("skillhub-bom-");
  writeSkill(skills, "notes-kit", { description: "Keep notes with a byte-order mark" });
  write(join(skills, "notes-kit/notes.txt"), `${BOM}first line\n${"more text\n".repeat(50)}`);
  write(
    join(skills, "ops/release.md"),
    `${BOM}---\nkeywords: [release]\ndescription: Ship it\nassets:\n  - file: assets/checklist.md\n    description: Checklist\n---\n\nShip.\n`,
  );
  write(join(skills, "ops/release/assets/checklist.md"), `${BOM}- tag\n`);
  const { handler, close } = await httpHub([skills]);
  const client = await httpClient(handler, "2025-11-25");
  closers.push(async () => {
    await client.close();
    await close();
  });
  return client;
}

describe("a byte-order mark is part of the file, whichever way it is fetched", () => {
  test("resources/read: a published file verifies against its digest; a tree node's file keeps its mark", async () => {
    const client = await remote();
    const skills = new SkillsClient(client);
    const { skill } = await skills.get("skill://notes-kit/SKILL.md");
    const file = await skills.read(skill, "notes.txt");
    expect(file.verified).toBe(true);
    expect(file.text?.startsWith(`${BOM}first line`)).toBe(true);
    const node = (await client.readResource({ uri: "skill://ops/release.md" })).contents[0] as { text: string };
    expect(node.text.startsWith(`${BOM}---\n`)).toBe(true);
    const asset = (await client.readResource({ uri: "skill://ops/release/assets/checklist.md" })).contents[0] as {
      text: string;
    };
    expect(asset.text).toBe(`${BOM}- tag\n`);
  });

  test("read_skill_file in parts: the parts joined are the file, the mark counted in the offsets", async () => {
    const client = await remote();
    const whole = `${BOM}first line\n${"more text\n".repeat(50)}`;
    const read = async (length: number, offset: number) =>
      (
        (await client.callTool({
          name: "read_skill_file",
          arguments: { skill_name: "notes-kit", file_path: "notes.txt", offset, length },
        })) as { structuredContent: { content: string; next_offset?: number; truncated: boolean } }
      ).structuredContent;
    const once = await read(4096, 0);
    expect(once).toMatchObject({ content: whole, truncated: false });
    let joined = "";
    for (let offset: number | undefined = 0; offset !== undefined; ) {
      const part = await read(100, offset);
      joined += part.content;
      offset = part.next_offset;
    }
    expect(joined).toBe(whole);
  });

  test("get_asset serves the declared file with its mark", async () => {
    const client = await remote();
    const got = (await client.callTool({
      name: "get_asset",
      arguments: { skill_path: "ops/release", file: "assets/checklist.md" },
    })) as { structuredContent: { content: string } };
    expect(got.structuredContent.content).toBe(`${BOM}- tag\n`);
  });
});
