import { afterAll, describe, expect, test } from "bun:test";
import { realpathSync, symlinkSync } from "node:fs";
import { join, sep } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { PROFILES } from "../../src/tools/index.ts";
import { createHttpHandler } from "../../src/transports/http-handler.ts";
import { SHOWN_ARG_CHARS } from "../../src/util/shown-arg.ts";
import { httpClient, type Revision } from "../helpers/clients.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { connect, httpHub, testHub, textOf } from "../helpers/hub.ts";
import { writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/** Every tool, the sk profile's two included. */
const TOOLS = [...(PROFILES.all ?? []), "skills.list", "skills.search"].join(",");

/**
 * A server whose folders all sit under one temp folder `root`: two skills
 * folders (the same skill in both, so one is shadowed), a skill with a script
 * and a template, a skill that is tools-only (its name breaks the Agent
 * Skills rules), one that is skipped (no description), a tree node with a
 * server script that prints its working folder, and a project folder.
 */
function world(root = tempDir("skillhub-remote-paths-")) {
  const first = join(root, "team-skills");
  const second = join(root, "more-skills");
  const project = join(root, "project");
  writeSkill(first, "pdf-invoice", {
    description: "Extract invoice fields from PDF files",
    body: `# PDF invoices\n\nRun \`python scripts/extract.py invoice.pdf\`, then fill templates/invoice.txt.\nOn the hub: ${join(first, "pdf-invoice", "scripts", "extract.py")}\nThat is all.\n`,
  });
  // A folder whose name holds a space, and a file whose own text names a path of the server.
  writeSkill(join(first, "with space"), "notes-kit", { description: "Keep notes" });
  write(join(first, "pdf-invoice/notes/where.txt"), `installed at ${first}\n`);
  write(join(first, "pdf-invoice/scripts/extract.py"), 'import sys\nprint("fields of", sys.argv[1])\n');
  write(join(first, "pdf-invoice/templates/invoice.txt"), "number: {{number}}\n");
  writeSkill(first, "ahrefs", { name: "Ahrefs Automation", description: "Automate Ahrefs tasks" });
  writeSkill(first, "broken", { description: null });
  writeSkill(second, "pdf-invoice", { description: "An older copy of the invoice skill" });
  writeNode(first, "_root.md", { keywords: ["global"] });
  writeNode(first, "tools/echo.md", {
    keywords: ["echo", "arguments"],
    extra: [
      "scripts:",
      "  - file: scripts/where.sh",
      "    description: Says where it runs",
      "    execution: server",
    ].join("\n"),
  });
  write(join(first, "tools/echo/scripts/where.sh"), 'echo "running in $PWD, script $0"\n');
  write(join(first, "tools/echo/private-notes.txt"), "not declared\n");
  write(join(project, "README.md"), "project\n");
  return { root, first, second, project };
}

/** Every string a server path could hide in: the folders as given and as the kernel resolves them. */
function forbidden(root: string): string[] {
  return [...new Set([root, realpathSync(root)])];
}

/**
 * A folder under a temp folder, so deep that a path in it is longer than an answer quotes of an argument
 * (SHOWN_ARG_CHARS) on any machine, however short its temp folder's path: the quote is cut inside it.
 */
function deepFolder(prefix: string, ...names: string[]): string {
  const deep = join(tempDir(prefix), ...names, "a folder deep enough that what an answer quotes of a path ends in it");
  expect(deep.length).toBeGreaterThan(SHOWN_ARG_CHARS);
  return deep;
}

/** What an answer must not show of `folder`: its start up to its second name (`/tmp/`), which no shorter start names. */
function folderStarts(folder: string): string[] {
  return forbidden(folder).map((path) => path.slice(0, path.indexOf(sep, 1) + 1));
}

async function remoteClient(revision: Revision, w: ReturnType<typeof world>, tools = TOOLS) {
  const { hub } = testHub({
    flags: { "skills-dir": [w.first, w.second], project: w.project },
    env: { SKILLHUB_TOOLS: tools, SKILLHUB_ENABLE_COMMANDS: "1", ALLOWED_COMMANDS: "ls,cat" },
    home: join(w.root, "home"),
    cwd: w.project,
    hub: { acceptRoots: false },
  });
  const handler = createHttpHandler(hub, { host: "127.0.0.1", version: "test" });
  void hub.start();
  await hub.ready;
  const client = await httpClient(handler, revision);
  closers.push(async () => {
    await client.close();
    await handler.close();
    hub.close();
  });
  return client;
}

/** Everything a client is told over a session that uses every tool, in right and wrong ways. */
async function everything(client: Client): Promise<{ all: string; answers: Record<string, string> }> {
  const answers: Record<string, string> = {};
  const call = async (label: string, name: string, args: Record<string, unknown>) => {
    answers[label] = JSON.stringify(await client.callTool({ name, arguments: args }));
  };
  answers.instructions = client.getInstructions() ?? "";
  answers.tools = JSON.stringify(await client.listTools());
  await call("skill", "skill", { name: "pdf-invoice" });
  await call("skill shadowed", "skill", { name: "more-skills:pdf-invoice" });
  await call("skill tools-only", "skill", { name: "Ahrefs Automation" });
  await call("skill missing", "skill", { name: "pdf-invoce" });
  await call("skill tree", "skill", { name: "tools/echo" });
  await call("search", "search_skills", { query: "invoice pdf" });
  await call("load_skill", "load_skill", { skill_name: "pdf-invoice" });
  await call("load_skill shadowed", "load_skill", { skill_name: "more-skills:pdf-invoice" });
  await call("load_skill tree", "load_skill", { skill_name: "tools/echo" });
  for (const file_path of ["scripts/extract.py", "../secret", "/etc/passwd", "nope.txt", "scripts"])
    await call(`read ${file_path}`, "read_skill_file", { skill_name: "pdf-invoice", file_path });
  await call("read by uri", "read_skill_file", {
    skill_name: "pdf-invoice",
    file_path: "skill://pdf-invoice/templates/invoice.txt",
  });
  await call("read other uri", "read_skill_file", { skill_name: "pdf-invoice", file_path: "skill://ahrefs/SKILL.md" });
  await call("list", "list_skills", {});
  await call("list flat", "list_skills", { flat: true, include_body: true });
  await call("get_skill", "get_skill", { context: "echo arguments" });
  await call("get_asset", "get_asset", { skill_path: "tools/echo", file: "scripts/where.sh" });
  await call("get_asset missing", "get_asset", { skill_path: "tools/echo", file: "scripts/none.sh" });
  await call("run_script", "run_script", { skill_path: "tools/echo", file: "scripts/where.sh", args: {} });
  await call("run_script cwd", "run_script", {
    skill_path: "tools/echo",
    file: "scripts/where.sh",
    args: {},
    cwd: "no-such-folder",
  });
  await call("command", "run_skill_command", { skill_name: "pdf-invoice", command: "ls", args: ["-la", "."] });
  await call("command missing", "run_skill_command", { skill_name: "pdf-invoice", command: "cat", args: ["nope"] });
  await call("refresh", "refresh_skills", {});
  await call("sk list", "skills.list", {});
  await call("sk search", "skills.search", { query: "invoice" });
  answers.prompts = JSON.stringify(await client.listPrompts());
  answers.prompt = JSON.stringify(await client.getPrompt({ name: "pdf-invoice" }));
  answers.resources = JSON.stringify(await client.listResources());
  answers.resource = JSON.stringify(await client.readResource({ uri: "skill://pdf-invoice/scripts/extract.py" }));
  answers.skills = JSON.stringify(await new SkillsClient(client).list());
  return { all: Object.values(answers).join("\n"), answers };
}

describe("a remote client (HTTP) is never told a path of the server", () => {
  test.each(["2025-11-25", "2026-07-28"] as const)(
    "revision %s: every tool, prompt, resource and error names files by skill:// URI",
    async (revision) => {
      const w = world();
      const { all, answers } = await everything(await remoteClient(revision, w));
      for (const path of forbidden(w.root)) expect(all).not.toContain(path);
      // The skill's folder and files by URI, with how to fetch them.
      const skill = answers.skill as string;
      expect(skill).toContain("Base directory: skill://pdf-invoice\\n");
      expect(skill).toContain('read_skill_file (skill_name \\"pdf-invoice\\", file_path \\"scripts/extract.py\\")');
      expect(skill).toContain("scripts/extract.py, templates/invoice.txt");
      expect(answers["skill shadowed"]).toContain("Base directory: skill://more-skills/pdf-invoice");
      // The shadowed skill's files are fetched by its qualified name: its plain name reaches the other one.
      expect(answers["skill shadowed"]).toContain('read_skill_file (skill_name \\"more-skills:pdf-invoice\\"');
      expect(answers["load_skill shadowed"]).toContain('read_skill_file (skill_name \\"more-skills:pdf-invoice\\"');
      expect(answers["load_skill shadowed"]).toContain('"name":"more-skills:pdf-invoice"');
      // A tree node's answer lists its files and fetches them with get_asset.
      expect(answers["skill tree"]).toContain("Files under skill://tools/echo/: scripts/where.sh.");
      expect(answers["skill tree"]).not.toContain("private-notes.txt");
      expect(answers["skill tree"]).toContain('get_asset (skill_path \\"tools/echo\\"');
      expect(answers.load_skill).toContain('"path":"skill://pdf-invoice"');
      expect(answers.load_skill).toContain('"uri":"skill://pdf-invoice/scripts/extract.py"');
      expect(answers["read by uri"]).toContain("number: {{number}}");
      expect(answers["read other uri"]).toContain("PATH_OUTSIDE_SKILL");
      expect(answers.prompt).toContain("Base directory: skill://pdf-invoice");
      expect(answers.instructions).toContain("skill://");
      // Listings name a skill's file by the URI the extension serves.
      expect(answers["list flat"]).toContain('"file":"skill://pdf-invoice/SKILL.md"');
      expect(answers["sk list"]).toContain("skill://pdf-invoice");
      // A script's output and a refused cwd name the server's folders, never their paths.
      expect(answers.run_script).toContain("running in <project>");
      expect(answers["run_script cwd"]).toContain("<project>/no-such-folder");
      // A path in a skill's own text, in a folder with a space: the URI, in prompts as in tools.
      expect(answers.prompt).toContain("On the hub: skill://pdf-invoice/scripts/extract.py\\nThat is all.");
      expect(answers["list flat"]).toContain('"file":"skill://notes-kit/SKILL.md"');
    },
  );

  test("with the skill tool alone: every skill's files through resources/read, published by the extension or not", async () => {
    const w = world();
    write(join(w.first, "ahrefs/scripts/run.sh"), "echo ahrefs\n");
    const client = await remoteClient("2025-11-25", w, "skill");
    const text = async (name: string) =>
      ((await client.callTool({ name: "skill", arguments: { name } })) as { content: { text: string }[] }).content[0]
        ?.text ?? "";
    const read = async (uri: string) => JSON.stringify(await client.readResource({ uri }));
    const served = await text("pdf-invoice");
    expect(served).toContain("Fetch a file with resources/read skill://pdf-invoice/scripts/extract.py.");
    expect(served).not.toContain("load_skill");
    expect(await read("skill://pdf-invoice/scripts/extract.py")).toContain("fields of");
    // A name outside the Agent Skills rules: the extension does not publish it, resources/read still serves it.
    const toolsOnly = await text("Ahrefs Automation");
    expect(toolsOnly).toContain("Fetch a file with resources/read skill://Ahrefs%20Automation/scripts/run.sh.");
    expect(await read("skill://Ahrefs%20Automation/scripts/run.sh")).toContain("echo ahrefs");
    // A tree node: its declared files, by the URI its answer names them with.
    const node = await text("tools/echo");
    expect(node).toContain("Fetch a file with resources/read skill://tools/echo/scripts/where.sh.");
    expect(await read("skill://tools/echo/scripts/where.sh")).toContain("running in");
    // The skill a same-named one shadows, by its qualified name and its source's URI.
    expect(await text("more-skills:pdf-invoice")).toContain("resources/read skill://more-skills/pdf-invoice/");
    expect(await read("skill://more-skills/pdf-invoice/SKILL.md")).toContain("An older copy");
  });

  test("a tree node's file URIs from load_skill are read by resources/read", async () => {
    const w = world();
    const client = await remoteClient("2025-11-25", w);
    const loaded = (await client.callTool({ name: "load_skill", arguments: { skill_name: "tools/echo" } })) as {
      structuredContent: { files: { path: string; uri: string }[] };
    };
    const uris = loaded.structuredContent.files.map((f) => f.uri);
    expect(uris).toContain("skill://tools/echo/scripts/where.sh");
    for (const uri of uris) expect((await client.readResource({ uri })).contents).toHaveLength(1);
  });

  test("a JSON answer stays the JSON of its structured content, and a file's own bytes are served as they are", async () => {
    const w = world();
    const client = await remoteClient("2025-11-25", w);
    const loaded = (await client.callTool({ name: "load_skill", arguments: { skill_name: "pdf-invoice" } })) as {
      content: { text: string }[];
      structuredContent: { instructions: string };
    };
    expect(JSON.parse(loaded.content[0]?.text ?? "")).toEqual(loaded.structuredContent);
    expect(loaded.structuredContent.instructions).toContain(
      "On the hub: skill://pdf-invoice/scripts/extract.py\nThat is all.",
    );
    const read = (await client.callTool({
      name: "read_skill_file",
      arguments: { skill_name: "pdf-invoice", file_path: "notes/where.txt" },
    })) as { content: { text: string }[]; structuredContent: { content: string; size_bytes: number } };
    expect(read.structuredContent.content).toBe(`installed at ${w.first}\n`);
    expect(read.structuredContent.size_bytes).toBe(Buffer.byteLength(read.structuredContent.content));
    expect(JSON.parse(read.content[0]?.text ?? "")).toEqual(read.structuredContent);
  });
});

describe("an image over HTTP: its bytes as they are, though their base64 spells a server folder", () => {
  // A folder's path is all base64 characters (letters, digits, /) where the temp folder's is.
  const root = tempDir("skillhubImg");
  const first = join(root, "skills");
  /** PNG bytes whose base64 holds `first` and a file under it: the sweep of server paths must leave them be. */
  const bytes = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]),
    Buffer.from(`${first}/brand/x`.padEnd(Math.ceil((first.length + 8) / 4) * 4, "A"), "base64"),
  ]);

  test.skipIf(!/^[A-Za-z0-9/]+$/.test(first))("read_skill_file and get_asset", async () => {
    const base64 = bytes.toString("base64");
    expect(base64).toContain(`${first}/brand/`);
    writeSkill(first, "brand", { description: "Brand assets" });
    write(join(first, "brand/logo.png"), bytes);
    writeNode(first, "assets.md", { extra: "assets:\n  - file: logo.png\n    description: Logo" });
    write(join(first, "assets/logo.png"), bytes);
    const client = await remoteClient("2025-11-25", {
      root,
      first,
      second: join(root, "more"),
      project: join(root, "project"),
    });
    const read = await client.callTool({
      name: "read_skill_file",
      arguments: { skill_name: "brand", file_path: "logo.png" },
    });
    expect(read.content).toContainEqual({ type: "image", data: base64, mimeType: "image/png" });
    expect(read.structuredContent).toMatchObject({ content: "", next_offset: 0 });
    // Its bytes, read from offset 0, as a client copying the skill reads them.
    const copied = await client.callTool({
      name: "read_skill_file",
      arguments: { skill_name: "brand", file_path: "logo.png", offset: 0 },
    });
    expect((copied.structuredContent as { content: string }).content).toBe(base64);
    const asset = await client.callTool({ name: "get_asset", arguments: { skill_path: "assets", file: "logo.png" } });
    expect(asset.content).toContainEqual({ type: "image", data: base64, mimeType: "image/png" });
    expect((asset.structuredContent as { content_base64: string }).content_base64).toBe(base64);
  });
});

describe("a script's output over HTTP: the server's folders as whole names", () => {
  /** What a remote client is told a server script printed: `echo` of `line` (the project's path in it). */
  async function printed(
    line: (project: string) => string,
    root?: string,
  ): Promise<{ stdout: string; project: string }> {
    const w = world(root);
    writeNode(w.first, "tools/paths.md", {
      keywords: ["paths"],
      extra: "scripts:\n  - file: scripts/paths.sh\n    description: Prints paths\n    execution: server",
    });
    write(join(w.first, "tools/paths/scripts/paths.sh"), `echo "${line(w.project)}"\n`);
    const client = await remoteClient("2025-11-25", w);
    const ran = (await client.callTool({
      name: "run_script",
      arguments: { skill_path: "tools/paths", file: "scripts/paths.sh", args: {} },
    })) as { structuredContent: { stdout: string } };
    return { stdout: ran.structuredContent.stdout, project: w.project };
  }

  test("a folder named like the project is not the project's, but another path of the server; a file URL in it becomes what its path does", async () => {
    const { stdout } = await printed((p) => `old ${p}-old/x, next ${p}2/y, url file://${p}/out.txt, own file://$0`);
    expect(stdout).toBe(
      "old <server path>, next <server path>, url <project>/out.txt, own skill://tools/paths/scripts/paths.sh\n",
    );
  });

  test("a path of the server whose names hold spaces is hidden whole, quoted or bare", async () => {
    const spaced = join(tempDir("skillhub-spaced-"), "Jane Doe", "secret folder");
    const { stdout } = await printed(
      () => `open '${spaced}/x.txt' failed; wrote ${spaced}/y.txt; at main (${spaced}/app.js:3:9)`,
    );
    expect(stdout).toBe("open '<server path>' failed; wrote <server path>; at main (<server path>:3:9)\n");
  });

  test("a folder whose name holds `&` or `#`, in a URL's query that escapes its slashes but not those: named whole", async () => {
    const root = join(tempDir("skillhub-marks-"), "Tom&Jerry #2");
    const escaped = (path: string) => encodeURI(path).replaceAll("/", "%2F");
    const { stdout } = await printed(
      (p) => `open http://localhost:9/open?f=${escaped(p)}&y=1 and ?f=${escaped(join(p, "notes.txt"))}#top`,
      root,
    );
    expect(stdout).toBe("open http://localhost:9/open?f=<project>&y=1 and ?f=<project>/notes.txt#top\n");
  });

  test("a folder glued to an option (-I/srv/x) is still the folder; one inside a longer path is not", async () => {
    const { stdout, project } = await printed((p) => `cc -I${p}/include -L${p}/lib -Wl,-rpath,${p}/lib /backup${p}/x`);
    expect(stdout).toBe(`cc -I<project>/include -L<project>/lib -Wl,-rpath,<project>/lib /backup${project}/x\n`);
  });
});

describe("a skill's own words over HTTP", () => {
  test("a path the author wrote for the agent's machine is kept as read_skill_file serves it, even where it is a server folder too", async () => {
    // A server started in /tmp, and a skill that tells the agent to save a screenshot in /tmp.
    const w = world();
    const shot = `${w.project}/inspect.png`;
    writeSkill(w.first, "webapp-check", {
      description: "Check a web page",
      body: `# Check\n\npage.screenshot(path='${shot}')\nThen run ${join(w.first, "webapp-check", "check.sh")}.\n`,
    });
    writeNode(w.first, "web/shots.md", { keywords: ["shots"], body: `Save shots under ${shot}.\n` });
    const client = await remoteClient("2025-11-25", w);
    const said = [
      await client.callTool({ name: "skill", arguments: { name: "webapp-check" } }),
      await client.callTool({ name: "load_skill", arguments: { skill_name: "webapp-check" } }),
      await client.getPrompt({ name: "webapp-check" }),
    ].map((answer) => JSON.stringify(answer));
    for (const answer of said) {
      expect(answer).toContain(`page.screenshot(path='${shot}')`);
      expect(answer).toContain("Then run skill://webapp-check/check.sh.");
    }
    const routed = await client.callTool({ name: "get_skill", arguments: { context: "web/shots" } });
    expect((routed as { structuredContent: { content: string } }).structuredContent.content).toContain(
      `Save shots under ${shot}.`,
    );
    // What SkillHub or a program says is still swept: the same folder there is the project.
    const missing = await client.callTool({
      name: "run_script",
      arguments: { skill_path: "tools/echo", file: "scripts/where.sh", args: {}, cwd: "nope" },
    });
    expect(JSON.stringify(missing)).toContain("<project>/nope");
  });
});

describe("a tree node's files over HTTP: one skill:// URI, as the tree lays them out", () => {
  /** world() plus a branch: ops/_index declares a checklist that ops/release inherits, and release a server script. */
  function withBranch() {
    const w = world();
    writeNode(w.first, "ops/_index.md", {
      keywords: ["ops"],
      extra: "assets:\n  - file: assets/checklist.md\n    description: Release checklist",
    });
    write(join(w.first, "ops/_index/assets/checklist.md"), "- tag the release\n");
    writeNode(w.first, "ops/release.md", {
      keywords: ["release", "ship"],
      extra: [
        "scripts:",
        "  - file: scripts/release.sh",
        "    description: Prints where it is",
        "    execution: server",
        "  - file: scripts/notes.py",
        "    description: Drafts the release notes",
        "    args:",
        "      - name: since_tag",
        "        description: The last release's tag",
      ].join("\n"),
    });
    write(join(w.first, "ops/release/scripts/release.sh"), 'echo "script $0"\n');
    write(join(w.first, "ops/release/scripts/notes.py"), 'import os\nprint(os.environ["SKILL_ARG_SINCE_TAG"])\n');
    return w;
  }

  test("get_skill, get_asset, load_skill, list_skills and run_script name each file by the URI read_skill_file and resources/read take", async () => {
    const w = withBranch();
    const client = await remoteClient("2025-11-25", w);
    const call = async (name: string, args: Record<string, unknown>) =>
      ((await client.callTool({ name, arguments: args })) as { structuredContent: Record<string, any> })
        .structuredContent;
    const script = "skill://ops/release/scripts/release.sh";
    const checklist = "skill://ops/release/assets/checklist.md";
    const got = await call("get_skill", { context: "ops/release" });
    expect(got.scripts[0].uri).toBe(script);
    expect(got.inherited_assets[0].uri).toBe(checklist);
    expect(got.fetch).toContain(`or by its URI ${script} with read_skill_file or resources/read`);
    expect(got.fetch).toMatch(
      /then run from the same folder: `SKILL_ARG_SINCE_TAG='<since_tag>' python3 \.skillhub-skills\/ops-release-[0-9a-f]{8}\/scripts\/notes\.py`\. A script/,
    );
    expect(got.fetch).toEndWith(
      "/scripts/notes.py`. A script with execution 'server' runs on the server with run_script instead, where a path among its arguments names a file of the server, not yours.",
    );
    const asset = await call("get_asset", { skill_path: "ops/release", file: checklist });
    expect(asset).toMatchObject({ resolved_from: "ops/_index", content: "- tag the release\n", uri: checklist });
    const loaded = await call("load_skill", { skill_name: "ops/release" });
    expect(loaded.path).toBe("skill://ops/release");
    expect(loaded.files.map((f: { uri: string }) => f.uri)).toEqual([
      checklist,
      "skill://ops/release/scripts/notes.py",
      script,
    ]);
    for (const { uri } of loaded.files as { uri: string }[]) {
      const byTool = await call("read_skill_file", { skill_name: "ops/release", file_path: uri });
      const byResource = (await client.readResource({ uri })).contents[0] as { text: string };
      expect(byTool.content).toBe(byResource.text);
      expect(byTool.content.length).toBeGreaterThan(0);
    }
    const listed = await call("list_skills", { flat: true, query: "release" });
    const entry = listed.skills.find((e: { name: string }) => e.name === "ops/release");
    expect(entry).toMatchObject({ uri: "skill://ops/release", file: "skill://ops/release.md" });
    // The node's own file, where the tree has it.
    const own = (await client.readResource({ uri: entry.file })).contents[0] as { text: string };
    expect(own.text).toContain("keywords: [release, ship]");
    // What the script prints of its own path is that URI too, not a folder of the server.
    const ran = await call("run_script", { skill_path: "ops/release", file: "scripts/release.sh", args: {} });
    expect(ran.stdout).toBe(`script ${script}\n`);
    expect(ran.uri).toBe(script);
    // The encoded form read before still names the same file.
    expect(
      await call("read_skill_file", {
        skill_name: "ops/release",
        file_path: "skill://ops%2Frelease/scripts/release.sh",
      }),
    ).toMatchObject({ content: 'echo "script $0"\n' });
  });

  test("a tree node longer than the client shows: its first part names the file, by URI, and where the rest starts", async () => {
    const w = withBranch();
    const steps = Array.from({ length: 1100 }, (_, i) => `Step ${i + 1}: do the thing, then check the step before.`);
    writeNode(w.first, "ops/handbook.md", { keywords: ["handbook"], body: `${steps.join("\n")}\n` });
    const client = await remoteClient("2025-11-25", w);
    const call = async (name: string, args: Record<string, unknown>) =>
      ((await client.callTool({ name, arguments: args })) as { structuredContent: Record<string, any> })
        .structuredContent;
    const { instructions } = await call("load_skill", { skill_name: "ops/handbook" });
    const line =
      /Read the rest with read_skill_file \(skill_name "ops\/handbook", file_path "skill:\/\/ops\/handbook\.md", offset (\d+)\), then again from each answer's next_offset until it has none, or resources\/read skill:\/\/ops\/handbook\.md \(the whole file; this part stops before its line (\d+)\)\.\]$/.exec(
        instructions,
      );
    expect(line).not.toBeNull();
    const whole = ((await client.readResource({ uri: "skill://ops/handbook.md" })).contents[0] as { text: string })
      .text;
    const from = Number(line?.[2]);
    expect(instructions).toContain(`\n${whole.split("\n")[from - 2]}\n`);
    expect(instructions).not.toContain(whole.split("\n")[from - 1]);
    // The part, then read_skill_file from its offset to the end: the node's own text, whole.
    let rest = "";
    for (let offset: number | undefined = Number(line?.[1]); offset !== undefined; ) {
      const part = await call("read_skill_file", {
        skill_name: "ops/handbook",
        file_path: "skill://ops/handbook.md",
        offset,
      });
      rest += part.content;
      offset = part.next_offset;
    }
    const shown = instructions.slice(0, instructions.lastIndexOf("\n[SkillHub:"));
    const header = "=== OPS > HANDBOOK (from ops/handbook.md) ===\n\n";
    const own = shown.slice(shown.indexOf(header) + header.length);
    expect(whole.endsWith(own + rest)).toBe(true);
  });

  test("the node's own file URI: read_skill_file serves it; get_asset says which calls do", async () => {
    const client = await remoteClient("2025-11-25", withBranch());
    const read = (await client.callTool({
      name: "read_skill_file",
      arguments: { skill_name: "ops/release", file_path: "skill://ops/release.md" },
    })) as { structuredContent: { content: string } };
    const whole = ((await client.readResource({ uri: "skill://ops/release.md" })).contents[0] as { text: string }).text;
    expect(read.structuredContent.content).toBe(whole);
    const asset = (await client.callTool({
      name: "get_asset",
      arguments: { skill_path: "ops/release", file: "skill://ops/release.md" },
    })) as { structuredContent: { error: { code: string; message: string } } };
    expect(asset.structuredContent.error).toMatchObject({
      code: "PATH_OUTSIDE_SKILL",
      message:
        "'skill://ops/release.md' is the own file of tree node 'ops/release', not a file of its folder: load_skill('ops/release') serves its instructions, and read_skill_file and resources/read the file.",
    });
  });

  test("a skill named like a tree's folder keeps its files; the node's URI reaches the node's", async () => {
    const w = withBranch();
    writeSkill(w.first, "ops-kit", { name: "ops", description: "An Agent Skill named ops" });
    write(join(w.first, "ops-kit/release/scripts/release.sh"), "echo skill copy\n");
    write(join(w.first, "ops-kit/notes.txt"), "notes\n");
    const client = await remoteClient("2025-11-25", w);
    const text = async (uri: string) => ((await client.readResource({ uri })).contents[0] as { text: string }).text;
    expect(await text("skill://ops/release/scripts/release.sh")).toBe('echo "script $0"\n');
    expect(await text("skill://ops/notes.txt")).toBe("notes\n");
    // The extension publishes no file of the skill at a URI the node holds.
    const { skill } = await new SkillsClient(client).get("skill://ops/SKILL.md");
    const published = (skill as { resources?: { uri: string }[] }).resources?.map((r) => r.uri) ?? [];
    expect(published).toContain("skill://ops/notes.txt");
    expect(published.some((uri) => uri.startsWith("skill://ops/release/"))).toBe(false);
  });

  test("a skill's file at the URI of a node's own file keeps it; the node's file is then named, with no URI", async () => {
    const w = withBranch();
    writeSkill(w.first, "ops-kit", { name: "ops", description: "An Agent Skill named ops" });
    write(join(w.first, "ops-kit/release.md"), "the skill's own release notes\n");
    const client = await remoteClient("2025-11-25", w);
    const read = (await client.readResource({ uri: "skill://ops/release.md" })).contents[0] as { text: string };
    expect(read.text).toBe("the skill's own release notes\n");
    const { skill } = await new SkillsClient(client).get("skill://ops/SKILL.md");
    expect((skill as { resources?: { uri: string }[] }).resources?.map((r) => r.uri)).toContain(
      "skill://ops/release.md",
    );
    // The node's file is named by its skills folder: a URI here would fetch the skill's file.
    const listed = (await client.callTool({ name: "list_skills", arguments: { flat: true, query: "release" } })) as {
      structuredContent: { skills: { name: string; uri: string; file: string }[] };
    };
    const entry = listed.structuredContent.skills.find((e) => e.name === "ops/release");
    expect(entry).toMatchObject({ uri: "skill://ops/release", file: "<skills folder 'team-skills'>/ops/release.md" });
    expect(JSON.stringify(listed)).not.toContain(w.root);
  });
});

describe("a server folder whose name JSON escapes", () => {
  test("a backslash or a quote in the skills folder's path: still named by URI, never shown", async () => {
    // Deep: the command's argument below is quoted cut short, inside the folder's path, wherever the temp folder is.
    const root = deepFolder("skillhub-remote-escaped-", 'back\\slash "quoted"');
    const skills = join(root, "team skills");
    writeSkill(skills, "demo", { body: `# Demo\n\nRun ${join(skills, "demo", "run.sh")} here.\n` });
    write(join(skills, "demo", "run.sh"), "echo demo\n");
    const w = { ...world(), first: skills, second: skills, root };
    const client = await remoteClient("2025-11-25", { ...w, project: tempDir() });
    const answers = [
      await client.callTool({ name: "skill", arguments: { name: "demo" } }),
      await client.callTool({ name: "load_skill", arguments: { skill_name: "demo" } }),
      await client.callTool({ name: "list_skills", arguments: { flat: true } }),
      await client.callTool({
        name: "run_skill_command",
        arguments: { skill_name: "demo", command: "ls", args: ["-d", join(skills, "demo")] },
      }),
    ].map((a) => JSON.stringify(a));
    for (const answer of answers) {
      expect(answer).not.toContain("slash");
      expect(answer).not.toContain("quoted");
      for (const start of folderStarts(root)) expect(answer).not.toContain(start);
    }
    expect(answers[0]).toContain("Run skill://demo/run.sh here.");
    expect(answers[3]).toContain("Argument '…' is an absolute path");
  });
});

describe("a server path longer than an answer quotes of an argument", () => {
  test("sent as any tool's argument, over HTTP: no part of it in any answer, though its quote is cut inside it", async () => {
    const w = world(deepFolder("skillhub-remote-long-"));
    const client = await remoteClient("2025-11-25", w);
    const skillDir = join(w.first, "pdf-invoice");
    const file = join(skillDir, "scripts", "extract.py");
    const nodeFile = join(w.first, "tools", "echo", "scripts", "where.sh");
    const calls: Array<[string, Record<string, unknown>]> = [
      ["skill", { name: skillDir }],
      ["load_skill", { skill_name: file }],
      ["read_skill_file", { skill_name: "pdf-invoice", file_path: file }],
      ["read_skill_file", { skill_name: "pdf-invoice", file_path: `file://${file}` }],
      ["list_skills", { path: skillDir }],
      ["get_skill", { context: file }],
      ["get_asset", { skill_path: "tools/echo", file: nodeFile }],
      ["run_script", { skill_path: "tools/echo", file: nodeFile, args: {} }],
      ["run_script", { skill_path: "tools/echo", file: "scripts/where.sh", args: {}, cwd: join(w.project, "x") }],
      ["run_skill_command", { skill_name: "pdf-invoice", command: "ls", args: ["-la", join(w.root, "home")] }],
      ["run_skill_command", { skill_name: "pdf-invoice", command: file }],
      ["search_skills", { query: file }],
      ["skills.search", { query: file }],
    ];
    const answers: string[] = [];
    for (const [name, args] of calls) answers.push(JSON.stringify(await client.callTool({ name, arguments: args })));
    // A prompt's name: hidden whole, then quoted; a path of no folder is still cut inside a folder's name.
    const prompt = (name: string) => client.getPrompt({ name }).then(String, (error: Error) => error.message);
    const prompts = [
      await prompt(skillDir),
      await prompt(join(w.project, "notes")),
      await prompt(join(w.root, "elsewhere", "notes")),
    ];
    // Security: a quote cut where the caller chose tells nothing of the folders: padded so that the cut falls
    // right after a guess, a guess that starts a folder of this server and one that does not are answered alike.
    const padded = (guess: string) => prompt(`${"x".repeat(79 - guess.length)} ${guess}tail-past-the-cut`);
    const [right, wrong] = [w.root.slice(0, 12), `${w.root.slice(0, 11)}#`];
    expect(await padded(right as string)).toBe(await padded(wrong));
    expect(prompts[0]).toContain("No prompt named 'skill://pdf-invoice'");
    expect(prompts[1]).toContain("No prompt named '<project>/notes'");
    expect(prompts[2]).toContain("No prompt named '…'");
    const all = [...answers, ...prompts].join("\n");
    for (const start of folderStarts(w.root)) expect(all).not.toContain(start);
    expect(all).not.toContain("skillhub-remote-long-");
    expect(all).not.toContain("deep enough");
    expect(answers[9]).toContain("Argument '…' is an absolute path");
  });
});

describe("a local client (stdio) shares the disk and keeps the paths", () => {
  test("skill and load_skill give the folder's path; read_skill_file still takes a URI", async () => {
    const w = world();
    const { call, close } = await connect({ flags: { "skills-dir": [w.first] } });
    closers.push(close);
    const skill = await call("skill", { name: "pdf-invoice" });
    expect(textOf(skill)).toContain(`Base directory: ${join(w.first, "pdf-invoice")}\n\n---`);
    expect(textOf(skill)).not.toContain("skill://");
    const loaded = await call("load_skill", { skill_name: "pdf-invoice" });
    expect(loaded.structuredContent?.path).toBe(join(w.first, "pdf-invoice"));
    expect(loaded.structuredContent?.uri).toBe("skill://pdf-invoice");
    const read = await call("read_skill_file", {
      skill_name: "pdf-invoice",
      file_path: "skill://pdf-invoice/scripts/extract.py",
    });
    expect(read.structuredContent?.content).toContain("fields of");
  });
});

describe("run_script's cwd over HTTP", () => {
  test("a project root that leads to a home, or to the folder holding it, confines no client: refused like the home", async () => {
    const base = realpathSync(tempDir("skillhub-remote-root-"));
    const home = join(base, "home", "ana");
    const skills = join(base, "skills");
    writeNode(skills, "tools/pwd.md", {
      keywords: ["pwd"],
      extra: "scripts:\n  - file: scripts/pwd.sh\n    description: Prints its folder\n    execution: server",
    });
    write(join(skills, "tools/pwd/scripts/pwd.sh"), 'echo "in $PWD"\n');
    write(join(home, "work", "notes.txt"), "ana's\n");
    symlinkSync(home, join(base, "home-link"));
    symlinkSync(join(base, "home"), join(base, "homes-link"));
    write(join(base, "project", "work", "x.txt"), "project\n");
    for (const [project, confined] of [
      [join(base, "home-link"), false],
      [join(base, "homes-link"), false],
      [join(base, "home"), false],
      [join(base, "project"), true],
    ] as const) {
      const { handler, close } = await httpHub([skills], { home, cwd: base, flags: { project } });
      const client = await httpClient(handler, "2025-11-25");
      closers.push(async () => {
        await client.close();
        await close();
      });
      // A folder that is there, inside the root: only the root decides.
      const cwd = project.endsWith("home") || project.endsWith("homes-link") ? "ana/work" : "work";
      const ran = (await client.callTool({
        name: "run_script",
        arguments: { skill_path: "tools/pwd", file: "scripts/pwd.sh", args: {}, cwd },
      })) as { structuredContent: { stdout?: string; error?: { message: string } } };
      if (confined) expect(ran.structuredContent.stdout, project).toBe("in <project>/work\n");
      else
        expect(ran.structuredContent.error?.message, project).toBe(
          `cwd '${cwd}' cannot be used: this server has no project folder to run scripts in. Leave cwd out: a client on another machine runs scripts in the server's default folder only.`,
        );
    }
  });
});
