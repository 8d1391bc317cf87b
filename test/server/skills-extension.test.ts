import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, symlinkSync } from "node:fs";
import { basename, join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { z } from "zod";
import { Catalog } from "../../src/catalog/catalog.ts";
import { publication, publicationIfBuilt } from "../../src/server/skills-extension/publication.ts";
import { httpClient, REVISIONS, type Revision } from "../helpers/clients.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { httpHub, textOf } from "../helpers/hub.ts";
import { writeNode } from "../helpers/tree.ts";
import { eventually } from "../helpers/wait.ts";

afterAll(cleanupTemp);
const open = closeAfterEach();

/** Two skill folders (project shadows global), a handler, and clients on any revision. */
async function world(build?: (dirs: { a: string; b: string }) => void) {
  const a = tempDir("skillhub-ext-a-");
  const b = tempDir("skillhub-ext-b-");
  writeSkill(a, "pdf-processing", { description: "Extract and fill PDF forms" });
  write(join(a, "pdf-processing", "references", "FORMS.md"), "# Forms\n");
  write(join(a, "pdf-processing", "templates", "regional", "eu.md"), "# EU invoice\n");
  write(join(a, "pdf-processing", "scripts", "logo.bin"), new Uint8Array([0xff, 0xfe, 0x00, 0x01]));
  writeSkill(a, "git-helper", { description: "Git workflow helper" });
  writeSkill(b, "git-helper", { description: "The other git helper" });
  build?.({ a, b });
  const { hub, handler, close } = await httpHub([a, b]);
  open.push(close);
  const connect = async (revision: Revision) => {
    const client = await httpClient(handler, revision);
    open.unshift(() => client.close());
    return { client, skills: new SkillsClient(client) };
  };
  return { a, b, hub, handler, connect };
}

/** A raw request, for extension methods the typed client has no verb for. */
function request(client: Client, method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  return client.request({ method, params } as never, z.looseObject({}) as never) as Promise<Record<string, any>>;
}

/** The JSON-RPC error of a raw request (`undefined` when it succeeded). */
async function rpcError(client: Client, method: string, params: Record<string, unknown>) {
  try {
    await request(client, method, params);
    return undefined;
  } catch (error) {
    return error as { code: number; message: string };
  }
}

describe.each([...REVISIONS])("skills extension (SEP-2640) on %s", (revision) => {
  test("declares the extension with directoryRead, and resources", async () => {
    const w = await world();
    const { client, skills } = await w.connect(revision);
    const caps = client.getServerCapabilities();
    expect(caps?.extensions?.["io.modelcontextprotocol/skills"]).toEqual({ directoryRead: true });
    expect(caps?.resources).toBeDefined();
    expect(skills.supported).toBe(true);
  });

  test("skills/list: complete manifests with sha256 digests and sizes; the shadowed skill keeps its own URI", async () => {
    const w = await world();
    const { skills } = await w.connect(revision);
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    // Sorted by URI: the shadowed git-helper is listed under its source's label.
    expect(listing.skills.map((s) => s.uri)).toEqual([
      "skill://git-helper/SKILL.md",
      "skill://pdf-processing/SKILL.md",
      expect.stringMatching(/^skill:\/\/skillhub-ext-b-[a-z0-9]+\/git-helper\/SKILL\.md$/),
    ]);
    const pdf = listing.skills.find((s) => s.uri === "skill://pdf-processing/SKILL.md");
    expect(pdf?.frontmatter).toEqual({ name: "pdf-processing", description: "Extract and fill PDF forms" });
    const files = pdf?.resources === "dynamic" ? [] : (pdf?.resources ?? []);
    expect(files.map((f) => f.uri)).toEqual([
      "skill://pdf-processing/SKILL.md",
      "skill://pdf-processing/references/FORMS.md",
      "skill://pdf-processing/scripts/logo.bin",
      "skill://pdf-processing/templates/regional/eu.md",
    ]);
    const forms = files.find((f) => f.uri.endsWith("FORMS.md"));
    expect(forms?.size).toBe(8);
    expect(forms?.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const shadowed = listing.skills[2];
    expect(shadowed?.frontmatter.description).toBe("The other git helper");
    // Every file reads back and verifies against its entry, text and binary alike.
    for (const f of files) expect((await skills.read(pdf as never, f.uri)).verified).toBe(true);
    expect((await skills.read(shadowed as never)).text).toContain("The other git helper");
  });

  test("skills/get, resources/list and directory reads; -32602 for unknown URIs, `..` and non-directories", async () => {
    const w = await world();
    const { client, skills } = await w.connect(revision);
    expect((await skills.get("skill://git-helper/SKILL.md")).skill.frontmatter.name).toBe("git-helper");
    const resources = await client.listResources();
    expect(resources.resources).toContainEqual(
      expect.objectContaining({
        uri: "skill://pdf-processing/SKILL.md",
        name: "pdf-processing",
        description: "Extract and fill PDF forms",
        mimeType: "text/markdown",
      }),
    );
    const root = await skills.readDirectory("skill://pdf-processing");
    expect(root.resources.map((r) => [r.name, r.mimeType])).toEqual([
      ["references", "inode/directory"],
      ["scripts", "inode/directory"],
      ["templates", "inode/directory"],
      ["SKILL.md", "text/markdown"],
    ]);
    expect((await skills.readDirectory("skill://pdf-processing/templates")).resources.map((r) => r.uri)).toEqual([
      "skill://pdf-processing/templates/regional",
    ]);
    // A folder written as folders usually are, with a trailing slash, is the same folder.
    expect((await skills.readDirectory("skill://pdf-processing/")).resources).toEqual(root.resources);
    expect((await skills.readDirectory("skill://pdf-processing/templates/")).resources.map((r) => r.uri)).toEqual([
      "skill://pdf-processing/templates/regional",
    ]);
    for (const [method, uri] of [
      ["skills/get", "skill://nope/SKILL.md"],
      ["skills/get", "skill://pdf-processing/../git-helper/SKILL.md"],
      ["resources/directory/read", "skill://pdf-processing/SKILL.md"],
      ["resources/directory/read", "skill://nope"],
      ["resources/read", "skill://pdf-processing/../git-helper/SKILL.md"],
      ["resources/read", "skill://pdf-processing/references/../../git-helper/SKILL.md"],
      ["resources/read", "skill://pdf-processing/missing.md"],
    ] as const) {
      const error = await rpcError(client, method, { uri });
      expect({ method, uri, code: error?.code }).toEqual({ method, uri, code: -32602 });
    }
    // A miss says where a skill's files are listed, quoting a long URI cut as the tools quote names.
    const missing = await rpcError(client, "resources/read", { uri: "skill://pdf-processing/missing.md" });
    expect(missing?.message).toContain(
      "No file of a served skill is at skill://pdf-processing/missing.md. A skill's files are listed with their URIs by skills/get on its SKILL.md, resources/directory/read on its folder and load_skill.",
    );
    const long = await rpcError(client, "resources/read", { uri: `skill://pdf-processing/${"m".repeat(5000)}` });
    expect(long?.code).toBe(-32602);
    expect(long?.message.length).toBeLessThan(400);
  });

  test("a file changed between skills/list and resources/read fails the read; skills/get then has the new digest", async () => {
    const w = await world();
    const { client, skills } = await w.connect(revision);
    const [git] = (await skills.list()).skills;
    const before = git?.resources === "dynamic" ? undefined : git?.resources[0];
    writeSkill(w.a, "git-helper", {
      description: "Git workflow helper",
      body: "# Changed\n\nNew instructions, longer.\n",
    });
    const error = await rpcError(client, "resources/read", { uri: "skill://git-helper/SKILL.md" });
    expect(error?.message).toContain("changed since it was listed");
    const fresh = await skills.get("skill://git-helper/SKILL.md");
    const after = fresh.skill.resources === "dynamic" ? undefined : fresh.skill.resources[0];
    expect(after?.digest).not.toBe(before?.digest);
    const file = await skills.read(fresh.skill);
    expect(file.verified).toBe(true);
    expect(file.text).toContain("New instructions");
  });

  test("a file removed between skills/get and resources/read: the read says so, and skills/get then lists without it", async () => {
    const w = await world();
    const { client, skills } = await w.connect(revision);
    const { skill } = await skills.get("skill://pdf-processing/SKILL.md");
    const uris = (entry: typeof skill) => (entry.resources === "dynamic" ? [] : entry.resources.map((r) => r.uri));
    expect(uris(skill)).toContain("skill://pdf-processing/references/FORMS.md");
    rmSync(join(w.a, "pdf-processing", "references", "FORMS.md"));
    const error = await rpcError(client, "resources/read", { uri: "skill://pdf-processing/references/FORMS.md" });
    expect(error?.message).toBe(
      "skill://pdf-processing/references/FORMS.md was removed from the server since it was listed; call skills/get for the skill's current files.",
    );
    await eventually(async () => {
      const fresh = await skills.get("skill://pdf-processing/SKILL.md");
      return !uris(fresh.skill).includes("skill://pdf-processing/references/FORMS.md");
    });
  });
});

describe("what the extension publishes", () => {
  test("only strictly parsed skills with Agent Skills names; the tools still serve the rest; the reasons are kept", async () => {
    const w = await world(({ a }) => {
      writeSkill(a, "Bad_Name", { description: "A name the rules refuse" });
      writeSkill(a, "colon-skill", { description: "Use it: when things break" });
      writeSkill(a, "big-skill", { description: "Too many files" });
      for (let i = 0; i < 512; i++) write(join(a, "big-skill", "files", `f${i}.txt`), `${i}`);
    });
    const { client, skills } = await w.connect("2025-11-25");
    const uris = (await skills.list()).skills.map((s) => s.uri);
    expect(uris.some((u) => /bad_name|colon-skill|big-skill/i.test(u))).toBe(false);
    const pub = await publication(w.hub.catalog);
    const reasons = Object.fromEntries(pub.unpublished.map((u) => [u.skill.name, u.reason]));
    expect(reasons.Bad_Name).toContain("lowercase");
    expect(reasons["colon-skill"]).toContain("quote the value");
    expect(reasons["big-skill"]).toContain("more than 512 files");
    const loaded = await client.callTool({ name: "skill", arguments: { name: "big-skill" } });
    expect(textOf(loaded as never)).toContain("big-skill");
  });

  test("a skill's URI with its name in the other Unicode normal form reads the same files", async () => {
    const w = await world(({ a }) => {
      writeSkill(a, "cafe", { name: "caf\u00e9", description: "Composed" });
      write(join(a, "cafe", "notes", "n.txt"), "notes\n");
      writeSkill(a, "the", { name: "the\u0301", description: "Decomposed" });
    });
    const { client } = await w.connect("2025-11-25");
    const text = async (uri: string) => ((await client.readResource({ uri })).contents[0] as { text?: string }).text;
    expect(await text("skill://cafe%CC%81/SKILL.md")).toContain("description: Composed");
    expect(await text("skill://cafe\u0301/notes/n.txt")).toBe("notes\n");
    expect(await text("skill://th%C3%A9/SKILL.md")).toContain("description: Decomposed");
  });

  test("an unpublished skill's files read by the URI the tools name them with, as read_skill_file reads them", async () => {
    const outside = tempDir("skillhub-ext-outside-");
    write(join(outside, "secret.txt"), "secret\n");
    const w = await world(({ a }) => {
      writeSkill(a, "Bad_Name", { description: "A name the rules refuse" });
      write(join(a, "Bad_Name", "notes", "a b.txt"), "spaced\n");
      writeSkill(a, "linked", { description: "Holds links" });
      write(join(a, "linked", "real.txt"), "real\n");
      symlinkSync("real.txt", join(a, "linked", "inside.txt"));
      symlinkSync(join(outside, "secret.txt"), join(a, "linked", "outside.txt"));
      write(join(a, "linked", ".git", "config"), "[core]\n");
      writeSkill(join(a, "linked"), "nested", { description: "A skill inside" });
      writeNode(a, "tools/echo.md", { keywords: ["echo"], extra: "assets:\n  - file: where.sh\n    type: other" });
      write(join(a, "tools", "echo", "where.sh"), "echo here\n");
      // Links inside the folder to what is not the skill's: version-control metadata, a nested skill's file.
      write(join(a, "linked", ".git", "config"), "[remote]\n  url = https://user:SECRET@example.com/r.git\n");
      symlinkSync(".git/config", join(a, "linked", "gitcfg"));
      symlinkSync(".git", join(a, "linked", "g"));
      write(join(a, "linked", "nested", "secret.txt"), "NESTED\n");
      symlinkSync("nested/secret.txt", join(a, "linked", "nl"));
      // A tree node whose folder is an Agent Skill's.
      writeNode(a, "agent.md", { keywords: ["agent"] });
      writeSkill(a, "agent", { name: "hidden-agent", description: "An Agent Skill in a node's folder" });
      write(join(a, "agent", "secret.txt"), "AGENT\n");
      // A second skill of a name in the same source: served by no route.
      writeSkill(a, "dup-a", { name: "Dup_Name" });
      writeSkill(a, "dup-b", { name: "dup_name" });
      write(join(a, "dup-b", "f.txt"), "SECOND\n");
    });
    const { client, skills } = await w.connect("2025-11-25");
    const text = async (uri: string) => {
      const read = await client.readResource({ uri });
      return (read.contents[0] as { text?: string }).text;
    };
    expect(await text("skill://Bad_Name/SKILL.md")).toContain("A name the rules refuse");
    expect(await text("skill://Bad_Name/notes/a%20b.txt")).toBe("spaced\n");
    expect(await text("skill://linked/real.txt")).toBe("real\n");
    expect(await text("skill://linked/inside.txt")).toBe("real\n");
    expect(await text("skill://tools%2Fecho/where.sh")).toBe("echo here\n");
    for (const uri of [
      "skill://linked/outside.txt",
      "skill://linked/.git/config",
      "skill://linked/nested/SKILL.md",
      "skill://linked/../pdf-processing/SKILL.md",
      "skill://linked/missing.txt",
      "skill://bad_name/SKILL.md",
      "skill://linked/gitcfg",
      "skill://linked/g/config",
      "skill://linked/nl",
      "skill://agent/secret.txt",
      `skill://${basename(w.a)}/dup_name/f.txt`,
      `skill://linked/${"a/".repeat(64_000)}x`,
    ]) {
      const error = await rpcError(client, "resources/read", { uri });
      expect({ uri, code: error?.code }).toEqual({ uri, code: -32602 });
    }
    // The tools agree: such a link is not among the skill's files, and reading it is refused.
    const loaded = await client.callTool({ name: "load_skill", arguments: { skill_name: "linked" } });
    expect(JSON.stringify(loaded)).toContain("real.txt");
    expect(JSON.stringify(loaded)).not.toMatch(/gitcfg|"nl"/);
    for (const file_path of ["gitcfg", "g/config", "nl"]) {
      const read = await client.callTool({ name: "read_skill_file", arguments: { skill_name: "linked", file_path } });
      expect(JSON.stringify(read)).toContain("PATH_OUTSIDE_SKILL");
      expect(JSON.stringify(read)).not.toMatch(/SECRET|NESTED/);
    }
    // Still not published: listed nowhere in the extension, and no digest is claimed for them.
    const uris = (await skills.list()).skills.map((s) => s.uri);
    expect(uris.some((u) => /bad_name|linked\/|echo/i.test(u))).toBe(false);
  });

  test("a skill named like another source's label: the shadowed skill under that label stays reachable, and no URI names two files", async () => {
    const parent = tempDir("skillhub-ext-label-");
    const first = join(parent, "first");
    const team = join(parent, "team");
    writeSkill(first, "team", { description: "A skill named like the other source" });
    writeSkill(first, "git-helper", { description: "Served" });
    writeSkill(team, "git-helper", { description: "Shadowed one" });
    write(join(team, "git-helper", "notes.md"), "shadowed notes\n");
    // The served skill's own folder of that name would share its URIs with the shadowed skill: it is left
    // out of the served skill's entry, so that no URI names two files; its other files stay.
    write(join(first, "team", "git-helper", "notes.md"), "team's notes\n");
    write(join(first, "team", "guide.md"), "team's guide\n");
    const { handler, close } = await httpHub([first, team]);
    open.push(close);
    const client = await httpClient(handler, "2025-11-25");
    open.unshift(() => client.close());
    const skills = new SkillsClient(client);
    expect((await skills.list()).skills.map((e) => e.uri)).toContain("skill://team/git-helper/SKILL.md");
    expect((await skills.get("skill://team/git-helper/SKILL.md")).skill.frontmatter.description).toBe("Shadowed one");
    const read = await client.readResource({ uri: "skill://team/git-helper/notes.md" });
    expect((read.contents[0] as { text: string }).text).toBe("shadowed notes\n");
    expect((await skills.readDirectory("skill://team/git-helper")).resources.map((r) => r.name)).toContain("notes.md");
    expect((await skills.get("skill://team/SKILL.md")).skill.frontmatter.name).toBe("team");
    const entry = (await skills.get("skill://team/SKILL.md")).skill;
    const listed = entry.resources === "dynamic" ? [] : entry.resources.map((r) => r.uri);
    expect(listed).toEqual(["skill://team/SKILL.md", "skill://team/guide.md"]);
    const own = await client.readResource({ uri: "skill://team/guide.md" });
    expect((own.contents[0] as { text: string }).text).toBe("team's guide\n");
  });

  test("source labels written alike in a URI, and a served skill the extension does not publish: still one file per URI", async () => {
    const parent = tempDir("skillhub-ext-alike-");
    const first = join(parent, "first");
    writeSkill(first, "git-helper", { description: "Served" });
    // Named like the source `team` below, and not published (it holds a link): its git-helper/ folder is
    // the shadowed skill's URI.
    writeSkill(first, "team", { description: "Unpublished" });
    symlinkSync("SKILL.md", join(first, "team", "alias.md"));
    write(join(first, "team", "git-helper", "only-served.md"), "served team's own\n");
    for (const label of ["my.team", "my_team", "team"])
      writeSkill(join(parent, label), "git-helper", { description: label });
    // The first of the two written alike is not published (it holds a link): the second is, by that URI.
    symlinkSync("SKILL.md", join(parent, "my.team", "git-helper", "alias.md"));
    const { handler, close } = await httpHub([
      first,
      join(parent, "my.team"),
      join(parent, "my_team"),
      join(parent, "team"),
    ]);
    open.push(close);
    const client = await httpClient(handler, "2025-11-25");
    open.unshift(() => client.close());
    const listing = await new SkillsClient(client).list();
    const uris = listing.skills.map((e) => e.uri);
    expect(new Set(uris).size).toBe(uris.length);
    expect(uris).toContain("skill://my-team/git-helper/SKILL.md");
    const read = await client.readResource({ uri: "skill://my-team/git-helper/SKILL.md" });
    expect((read.contents[0] as { text: string }).text).toContain("description: my_team");
    const listed = listing.skills.find((e) => e.uri === "skill://my-team/git-helper/SKILL.md");
    expect(listed?.frontmatter.description).toBe("my_team");
    expect((await new SkillsClient(client).get("skill://my-team/git-helper/SKILL.md")).skill).toEqual(listed as never);
    const error = await rpcError(client, "resources/read", { uri: "skill://team/git-helper/only-served.md" });
    expect(error?.code).toBe(-32602);
  });

  test("a path no file can have (a link loop, a 300-character name) is not found, never an internal error", async () => {
    const w = await world(({ a }) => {
      writeSkill(a, "Bad_Name", { description: "Unpublished" });
      symlinkSync("loop", join(a, "Bad_Name", "loop"));
    });
    const { client } = await w.connect("2025-11-25");
    for (const file_path of ["loop/x.md", `${"a".repeat(300)}/x.md`]) {
      const tool = JSON.stringify(
        await client.callTool({ name: "read_skill_file", arguments: { skill_name: "Bad_Name", file_path } }),
      );
      expect(tool).not.toContain("INTERNAL_ERROR");
      expect(tool).toMatch(/PATH_OUTSIDE_SKILL|FILE_NOT_FOUND/);
      const error = await rpcError(client, "resources/read", { uri: `skill://Bad_Name/${file_path}` });
      expect({ file_path, code: error?.code }).toEqual({ file_path, code: -32602 });
    }
  });

  test("a refused path is quoted as the tools quote it: cut to 80 characters, NUL and direction marks escaped", async () => {
    const w = await world(({ a }) => {
      writeSkill(a, "Bad_Name", { description: "Unpublished" });
      symlinkSync("loop", join(a, "Bad_Name", "loop"));
      symlinkSync("\u202eloop", join(a, "Bad_Name", "\u202eloop"));
    });
    const { client } = await w.connect("2025-11-25");
    const message = async (path: string) =>
      (await rpcError(client, "resources/read", { uri: `skill://Bad_Name/${path}` }))?.message ?? "";
    const rtl = await message("\u202eloop/x.md");
    expect(rtl).toContain("'\\u202eloop/x.md' is a symlink loop.");
    expect(rtl).not.toContain("\u202e");
    // A path of 3,504 characters: the answer quotes none of it, cut where the path would be left unfinished.
    const long = await message(`${"loop/".repeat(700)}x.md`);
    expect(long).toContain("'…' is a symlink loop.");
    expect(long.length).toBeLessThan(400);
    for (const path of [`loop/${"a".repeat(1_000_000)}.md`, "loop/a\u0000b.md", "loop/\u202e.md"]) {
      const answer = await message(path);
      expect({
        path: path.slice(0, 20),
        length: answer.length < 400,
        raw: answer.includes("\u0000") || answer.includes("\u202e"),
      }).toEqual({
        path: path.slice(0, 20),
        length: true,
        raw: false,
      });
    }
  });

  test("a tree node's files through resources/read: what it declares or inherits, the rest only beside read_skill_file", async () => {
    const a = tempDir("skillhub-ext-tree-");
    writeNode(a, "_root.md", { keywords: ["global"] });
    writeNode(a, "api/_index.md", { keywords: ["api"], extra: "assets:\n  - file: shared.txt\n    type: template" });
    writeNode(a, "api/auth.md", {
      keywords: ["auth"],
      extra: "inherit: true\nassets:\n  - file: template.md\n    type: template",
    });
    write(join(a, "api", "_index", "shared.txt"), "inherited\n");
    write(join(a, "api", "auth", "template.md"), "declared\n");
    write(join(a, "api", "auth", "deploy.env"), "API_KEY=undeclared\n");
    for (const tools of ["tree", "hub"]) {
      const { handler, close } = await httpHub([a], { flags: { tools } });
      open.push(close);
      const client = await httpClient(handler, "2025-11-25");
      open.unshift(() => client.close());
      const text = async (uri: string) => ((await client.readResource({ uri })).contents[0] as { text: string }).text;
      expect(await text("skill://api%2Fauth/template.md")).toBe("declared\n");
      expect(await text("skill://api%2Fauth/shared.txt")).toBe("inherited\n");
      const undeclared = "skill://api%2Fauth/deploy.env";
      if (tools === "tree") {
        // get_asset serves declared files only, and this session has nothing else: neither does resources/read.
        const error = await rpcError(client, "resources/read", { uri: undeclared });
        expect(error?.code).toBe(-32602);
        expect(error?.message).not.toContain("undeclared");
      } else expect(await text(undeclared)).toBe("API_KEY=undeclared\n");
    }
  });

  test("a read, a get or a directory read makes only its own skill's entry, not the whole publication", async () => {
    const w = await world(({ a }) => {
      for (let i = 0; i < 60; i++) writeSkill(a, `skill-${i}`, { description: `Skill ${i}` });
    });
    const { client, skills } = await w.connect("2025-11-25");
    const read = await client.readResource({ uri: "skill://pdf-processing/references/FORMS.md" });
    expect((read.contents[0] as { text: string }).text).toBe("# Forms\n");
    expect((await skills.get("skill://skill-7/SKILL.md")).skill.frontmatter.name).toBe("skill-7");
    expect((await skills.readDirectory("skill://pdf-processing")).resources).toHaveLength(4);
    expect(publicationIfBuilt(w.hub.catalog)).toBeUndefined();
    // The whole listing reuses the entries already made: the same digests.
    const listed = (await skills.list()).skills.find((e) => e.uri === "skill://skill-7/SKILL.md");
    expect(listed).toEqual((await skills.get("skill://skill-7/SKILL.md")).skill);
    expect(publicationIfBuilt(w.hub.catalog)?.skills).toHaveLength(63);
  });

  test("a URI's scheme is read in any case, as URI schemes are: SKILL:// reads the file skill:// names", async () => {
    const w = await world();
    const { client } = await w.connect("2025-11-25");
    const read = await client.readResource({ uri: "SKILL://pdf-processing/references/FORMS.md" });
    expect((read.contents[0] as { text: string }).text).toBe("# Forms\n");
    const tool = await client.callTool({
      name: "read_skill_file",
      arguments: { skill_name: "pdf-processing", file_path: "Skill://pdf-processing/references/FORMS.md" },
    });
    expect(tool.isError).toBeFalsy();
    expect(JSON.stringify(tool.content)).toContain("# Forms");
  });

  test("a URI with a section or a query, as a Markdown link gives it, reads the file; a name holding # or ? is still its own", async () => {
    const w = await world(({ a }) => write(join(a, "pdf-processing", "notes #1?.md"), "hash\n"));
    const { client } = await w.connect("2025-11-25");
    const text = async (uri: string) => ((await client.readResource({ uri })).contents[0] as { text: string }).text;
    expect(await text("skill://pdf-processing/references/FORMS.md#fill-a-form")).toBe("# Forms\n");
    expect(await text("skill://pdf-processing/references/FORMS.md?plain=1")).toBe("# Forms\n");
    expect(await text("skill://pdf-processing/notes%20%231%3F.md")).toBe("hash\n");
    expect(await text("skill://pdf-processing/notes%20%231%3F.md#top")).toBe("hash\n");
    const tool = await client.callTool({
      name: "read_skill_file",
      arguments: { skill_name: "pdf-processing", file_path: "skill://pdf-processing/references/FORMS.md#fill-a-form" },
    });
    expect(tool.structuredContent).toMatchObject({ content: "# Forms\n", encoding: "utf-8" });
    expect((await rpcError(client, "resources/read", { uri: "skill://pdf-processing/notes%20" }))?.code).toBe(-32602);
  });

  test("a URI of many segments is looked up only as deep as the deepest skill's root goes", async () => {
    const w = await world(({ a }) => {
      writeNode(a, "ops/release.md", { keywords: ["release"], extra: "assets:\n  - file: notes.txt\n    type: other" });
      write(join(a, "ops/release/notes.txt"), "notes\n");
    });
    const { client } = await w.connect("2025-11-25");
    const get = Catalog.prototype.get;
    let lookups = 0;
    Catalog.prototype.get = function (this: Catalog, name: string) {
      lookups++;
      return get.call(this, name);
    };
    try {
      // Every lookup joins the segments it tries: one per segment would cost the square of the URI's length.
      const deep = `skill://ops/release/${"a/".repeat(5000)}x.md`;
      expect(await rpcError(client, "resources/read", { uri: deep })).toMatchObject({ code: -32602 });
      expect(lookups).toBeLessThan(20);
      // The node's own files are still found under its two segments.
      const read = (await request(client, "resources/read", { uri: "skill://ops/release/notes.txt" })) as {
        contents: { text: string }[];
      };
      expect(read.contents[0]?.text).toBe("notes\n");
    } finally {
      Catalog.prototype.get = get;
    }
  });

  test("skills/list pages through a large catalog without repeating or skipping", async () => {
    const w = await world(({ a }) => {
      for (let i = 0; i < 230; i++) writeSkill(a, `skill-${String(i).padStart(3, "0")}`, { description: `Skill ${i}` });
    });
    const { client } = await w.connect("2026-07-28");
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = (await request(client, "skills/list", cursor ? { cursor } : {})) as {
        skills: { uri: string }[];
        nextCursor?: string;
        ttlMs: number;
        cacheScope: string;
      };
      expect(page.ttlMs).toBeGreaterThanOrEqual(0);
      expect(page.cacheScope).toBe("private");
      seen.push(...page.skills.map((s) => s.uri));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(233);
  });
});
