import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
} from "node:fs";
import { join, relative } from "node:path";
import { gunzipSync, constants as zlibConstants } from "node:zlib";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { ARCHIVE_LINK_SECONDS } from "../../src/transports/archive-links.ts";
import { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from "../../src/transports/http-handler.ts";
import type { Revision } from "../helpers/clients.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { GIT_ENV } from "../helpers/git.ts";
import { handTimers } from "../helpers/hand-timers.ts";
import { countedSocket } from "../helpers/http.ts";
import { connect, testHub, textOf } from "../helpers/hub.ts";
import { writeNode } from "../helpers/tree.ts";
import { cli, machine } from "../lock/cli.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

const TOKEN = "archive-test-token-0123456789";
const HOST = "127.0.0.1:8000";
const BINARY = Uint8Array.from({ length: 3000 }, (_, i) => (i * 13) % 256);

/**
 * Skills whose archive must hold exactly what read_skill_file serves: `kit` has an executable script, a
 * reference, a binary asset and a link to its own file, beside what is never served (version-control
 * metadata, a nested skill's files, a link leading out of the folder); `forms/new` is a tree node with a
 * script a model runs itself, with an argument.
 */
function world() {
  const dir = tempDir("skillhub-archive-");
  const kit = join(dir, "kit");
  writeSkill(dir, "kit", { description: "A kit of scripts", body: "# Kit\n\nRun `bash scripts/run.sh`.\n" });
  write(join(kit, "scripts/run.sh"), 'echo "kit ran"\n');
  chmodSync(join(kit, "scripts/run.sh"), 0o755);
  write(join(kit, "references/guide.md"), "A guide.\n");
  write(join(kit, "assets/logo.bin"), BINARY);
  write(join(kit, ".git/config"), "[remote]\n\turl = https://user:secret@example.com\n");
  writeSkill(kit, "inner", { description: "A nested skill" });
  write(join(kit, "inner/notes.txt"), "the nested skill's\n");
  const secret = write(join(tempDir("skillhub-archive-outside-"), "secret.txt"), "outside\n");
  symlinkSync(secret, join(kit, "escape.txt"));
  symlinkSync(join(kit, "references/guide.md"), join(kit, "guide-link.md"));
  writeNode(dir, "_root.md", { keywords: ["global"] });
  writeNode(dir, "forms/new.md", {
    keywords: ["form", "forms"],
    extra: [
      "scripts:",
      "  - file: scripts/new-form.sh",
      "    description: Makes a form",
      "    execution: claude",
      "    args:",
      "      - name: component_name",
      "        description: The component",
      "        required: true",
      "      - name: target_dir",
      "        description: Where the form goes",
      "        required: false",
      "        default: src/my forms",
      "      - name: dry_run",
      "        description: Only print what would change",
      "        required: false",
    ].join("\n"),
  });
  write(
    join(dir, "forms/new/scripts/new-form.sh"),
    'echo "form $SKILL_ARG_COMPONENT_NAME in $SKILL_ARG_TARGET_DIR, dry run ${SKILL_ARG_DRY_RUN-unset}"\n',
  );
  return { dir, kit };
}

/** The command line a tree node's answers give for forms/new's script, and the sentence after it. */
const FORM_LINE = (folder: string) =>
  `\`SKILL_ARG_COMPONENT_NAME='<component_name>' SKILL_ARG_TARGET_DIR='src/my forms' bash ${folder}/scripts/new-form.sh\`. Optional: SKILL_ARG_TARGET_DIR (Where the form goes), set to its default in the line; SKILL_ARG_DRY_RUN (Only print what would change), left out of the line.`;

/** A started hub over `dir` behind a handler with a token and a clock the test moves. */
async function serve(dir: string | string[], options: Partial<HttpHandlerOptions> = {}) {
  const { hub, logger } = testHub({
    env: { SKILLHUB_TOOLS: "all" },
    flags: { "skills-dir": [dir].flat() },
    hub: { acceptRoots: false },
  });
  let clock = Date.parse("2026-01-01T00:00:00Z");
  const handler = createHttpHandler(hub, { host: "127.0.0.1", token: TOKEN, now: () => clock, ...options });
  void hub.start();
  await hub.ready;
  closers.push(async () => {
    await handler.close();
    hub.close();
  });
  return { hub, logger, handler, advance: (ms: number) => (clock += ms) };
}

/** A client of `handler` that sends the token, as a configured agent does. */
async function client(handler: HttpHandler, revision: Revision = "2025-11-25", token = TOKEN): Promise<Client> {
  const c = new Client(
    { name: "remote-agent", version: "1.0.0" },
    revision >= "2026-"
      ? { versionNegotiation: { mode: { pin: revision } } }
      : { supportedProtocolVersions: [revision] },
  );
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`http://${HOST}/mcp`), {
      fetch: (input, init) => {
        const request = new Request(String(input), init);
        request.headers.set("host", HOST);
        if (token) request.headers.set("authorization", `Bearer ${token}`);
        return handler.handle(request);
      },
    }),
  );
  closers.unshift(() => c.close());
  return c;
}

const COMMAND = /`(if test -L [^`]* -o "\$tmp\/skill\.tar\.gz" '([^']+)' [^`]* mv "\$tmp\/skill" (\S+) [^`]*)`/;

/** The download command an answer gives: its folder and URL, and the command as a whole. */
function download(text: string): { dir: string; url: string; command: string } {
  const match = COMMAND.exec(text);
  if (!match) throw new Error(`no download command in: ${text.slice(0, 600)}`);
  return { dir: match[3] as string, url: match[2] as string, command: match[1] as string };
}

/** GET `url` as curl does: no token, no Origin. */
function fetchArchive(handler: HttpHandler, url: string, method = "GET"): Promise<Response> {
  return handler.handle(new Request(url, { method, headers: { host: new URL(url).host } }));
}

/** An archive's bytes unpacked by the system's tar into a new folder: every file's path, bytes and mode. */
function unpack(bytes: Uint8Array): Map<string, { bytes: Buffer; executable: boolean }> {
  const dir = tempDir("skillhub-archive-out-");
  const run = Bun.spawnSync(["tar", "-xzf", "-", "-C", dir], { stdin: bytes });
  expect(run.stderr.toString()).toBe("");
  expect(run.exitCode).toBe(0);
  const files = new Map<string, { bytes: Buffer; executable: boolean }>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else
        files.set(relative(dir, path), {
          bytes: readFileSync(path),
          executable: (statSync(path).mode & 0o111) !== 0,
        });
    }
  };
  walk(dir);
  return files;
}

describe("a remote agent downloads a skill's folder with one command", () => {
  test.each(["2025-11-25", "2026-07-28"] as const)(
    "revision %s: the skill tool's command fetches, without the token, exactly the files read_skill_file serves",
    async (revision) => {
      const { dir, kit } = world();
      const { handler } = await serve(dir);
      const agent = await client(handler, revision);
      const text = textOf(await agent.callTool({ name: "skill", arguments: { name: "kit" } }));
      const { dir: folder, url, command } = download(text);
      expect(folder).toBe(".skillhub-skills/kit");
      expect(url.startsWith(`http://${HOST}/archive/`)).toBe(true);
      expect(command).toBe(
        `if test -L .skillhub-skills; then echo '.skillhub-skills is a symbolic link; nothing was downloaded' >&2; false; fi && mkdir -p .skillhub-skills && tmp=$(mktemp -d .skillhub-skills/.kit.XXXXXX) && { curl -fsSL -o "$tmp/skill.tar.gz" '${url}' && mkdir "$tmp/skill" && tar -xzf "$tmp/skill.tar.gz" -C "$tmp/skill" || { rc=$?; rm -rf "$tmp"; (exit $rc); }; } && rm -rf .skillhub-skills/kit && mv "$tmp/skill" .skillhub-skills/kit && rm -rf "$tmp"`,
      );
      expect(text).toContain("then run from the same folder: `bash .skillhub-skills/kit/scripts/run.sh`.");
      const response = await fetchArchive(handler, url);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/gzip");
      const files = unpack(new Uint8Array(await response.arrayBuffer()));
      const loaded = await agent.callTool({ name: "load_skill", arguments: { skill_name: "kit" } });
      const listed = (loaded.structuredContent as { files: { path: string }[] }).files.map((f) => f.path);
      expect([...files.keys()].sort()).toEqual(["SKILL.md", ...listed].sort());
      expect([...files.keys()].sort()).toEqual([
        "SKILL.md",
        "assets/logo.bin",
        "guide-link.md",
        "references/guide.md",
        "scripts/run.sh",
      ]);
      for (const [path, file] of files) expect(file.bytes.equals(readFileSync(join(kit, path)))).toBe(true);
      expect(files.get("scripts/run.sh")?.executable).toBe(true);
      expect(files.get("references/guide.md")?.executable).toBe(false);
      // The skill's prompt says the same.
      const prompt = await agent.getPrompt({ name: "kit" });
      const promptText = (prompt.messages[0]?.content as { text: string }).text;
      expect(download(promptText).dir).toBe(".skillhub-skills/kit");
      // What read_skill_file refuses, the archive leaves out.
      for (const path of [".git/config", "inner/notes.txt", "escape.txt"]) {
        const read = await agent.callTool({
          name: "read_skill_file",
          arguments: { skill_name: "kit", file_path: path },
        });
        expect(read.isError).toBe(true);
      }
    },
  );

  test("get_skill, load_skill and SCRIPT_NOT_SERVER give the command, then the command line to run", async () => {
    const { dir } = world();
    const { handler } = await serve(dir);
    const agent = await client(handler);
    const routed = await agent.callTool({ name: "get_skill", arguments: { context: "new form" } });
    const fetchText = (routed.structuredContent as { fetch: string }).fetch;
    const { dir: folder, url } = download(fetchText);
    // A tree node's folder is told apart from an Agent Skill named forms-new's.
    expect(folder).toMatch(/^\.skillhub-skills\/forms-new-[0-9a-f]{8}$/);
    // A required argument is a placeholder, an optional one has its default or is left out, as run_script does.
    expect(fetchText).toEndWith(`then run from the same folder: ${FORM_LINE(folder)}`);
    const archive = new Uint8Array(await (await fetchArchive(handler, url)).arrayBuffer());
    const files = unpack(archive);
    expect([...files.keys()]).toEqual(["scripts/new-form.sh"]);
    // The line, run by sh from the folder the download was unpacked in, passes the default.
    const workspace = tempDir("skillhub-archive-workspace-");
    mkdirSync(join(workspace, folder), { recursive: true });
    expect(Bun.spawnSync(["tar", "-xzf", "-", "-C", join(workspace, folder)], { stdin: archive }).exitCode).toBe(0);
    const line = (/`(SKILL_ARG_[^`]+)`/.exec(fetchText)?.[1] as string).replace("'<component_name>'", "Login");
    const ran = Bun.spawnSync(["sh", "-c", line], { cwd: workspace, env: { PATH: process.env.PATH } });
    expect(ran.stderr.toString()).toBe("");
    expect(ran.stdout.toString()).toBe("form Login in src/my forms, dry run unset\n");
    const refused = await agent.callTool({
      name: "run_script",
      arguments: { skill_path: "forms/new", file: "scripts/new-form.sh", args: { component_name: "Login" } },
    });
    const message = (refused.structuredContent as { error: { code: string; message: string } }).error;
    expect(message.code).toBe("SCRIPT_NOT_SERVER");
    expect(download(message.message).url.split("/archive/")[1]?.split(".")[1]).toBe(
      url.split("/archive/")[1]?.split(".")[1],
    );
    expect(message.message).toEndWith(FORM_LINE(folder));
    // An Agent Skill's script, which run_script never runs: the same command, then its command line.
    const agentSkill = await agent.callTool({
      name: "run_script",
      arguments: { skill_path: "kit", file: "scripts/run.sh" },
    });
    const notDeclared = (agentSkill.structuredContent as { error: { code: string; message: string } }).error;
    expect(notDeclared.code).toBe("SCRIPT_NOT_DECLARED");
    expect(download(notDeclared.message).dir).toBe(".skillhub-skills/kit");
    expect(notDeclared.message).toEndWith("`bash .skillhub-skills/kit/scripts/run.sh`.");
    const loaded = await agent.callTool({ name: "load_skill", arguments: { skill_name: "forms/new" } });
    const loadedFetch = (loaded.structuredContent as { fetch: string }).fetch;
    expect(download(loadedFetch).dir).toBe(folder);
    expect(loadedFetch).toEndWith(FORM_LINE(folder));
  });

  test("the archive holds the skill's folders, an empty one too (0755), and each file's own time; a touch keeps the link", async () => {
    const { dir, kit } = world();
    mkdirSync(join(kit, "data/empty"), { recursive: true });
    const files = ["SKILL.md", "scripts/run.sh", "references/guide.md", "assets/logo.bin"];
    const touch = (iso: string) => {
      for (const path of files) utimesSync(join(kit, path), new Date(iso), new Date(iso));
    };
    touch("2024-03-04T05:06:00Z");
    const { handler } = await serve(dir);
    const agent = await client(handler);
    const listing = async () => {
      const { url } = download(textOf(await agent.callTool({ name: "skill", arguments: { name: "kit" } })));
      const bytes = new Uint8Array(await (await fetchArchive(handler, url)).arrayBuffer());
      const run = Bun.spawnSync(["tar", "-tvzf", "-"], { stdin: bytes, env: { TZ: "UTC", PATH: process.env.PATH } });
      expect(run.exitCode).toBe(0);
      // `drwxr-xr-x 0/0 0 2024-03-04 05:06 data/empty/` → its mode, time and name.
      const entries = run.stdout
        .toString()
        .trim()
        .split("\n")
        .map((line) => line.split(/\s+/))
        .map((words) => `${words[0]} ${words[3]} ${words[4]} ${words.slice(5).join(" ")}`);
      return { url, entries };
    };
    const first = await listing();
    const folders = first.entries.filter((e) => e.startsWith("d"));
    // A folder's time is the download's (the test's clock), as unpacking would give it.
    expect(folders).toEqual([
      "drwxr-xr-x 2026-01-01 00:00 assets/",
      "drwxr-xr-x 2026-01-01 00:00 data/",
      "drwxr-xr-x 2026-01-01 00:00 data/empty/",
      "drwxr-xr-x 2026-01-01 00:00 references/",
      "drwxr-xr-x 2026-01-01 00:00 scripts/",
    ]);
    expect(first.entries.filter((e) => !e.startsWith("d")).sort()).toEqual([
      "-rw-r--r-- 2024-03-04 05:06 SKILL.md",
      "-rw-r--r-- 2024-03-04 05:06 assets/logo.bin",
      "-rw-r--r-- 2024-03-04 05:06 guide-link.md",
      "-rw-r--r-- 2024-03-04 05:06 references/guide.md",
      "-rwxr-xr-x 2024-03-04 05:06 scripts/run.sh",
    ]);
    // Touched, not changed: the same link, and the archive has the new times.
    touch("2025-06-07T08:09:00Z");
    const touched = await listing();
    expect(touched.url).toBe(first.url);
    expect(touched.entries).toContain("-rwxr-xr-x 2025-06-07 08:09 scripts/run.sh");
    expect(touched.entries).not.toContain("-rwxr-xr-x 2024-03-04 05:06 scripts/run.sh");
  });

  test("expired, altered, foreign or unknown links are refused with a text that says so", async () => {
    const { dir } = world();
    const { handler, advance } = await serve(dir);
    const agent = await client(handler);
    const kitUrl = download(textOf(await agent.callTool({ name: "skill", arguments: { name: "kit" } }))).url;
    const formUrl = download(
      (
        (await agent.callTool({ name: "get_skill", arguments: { context: "new form" } })).structuredContent as {
          fetch: string;
        }
      ).fetch,
    ).url;
    const refusal = async (url: string, method = "GET") => {
      const response = await fetchArchive(handler, url, method);
      expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      return { status: response.status, text: await response.text() };
    };
    const [id, version, expires, mac] = (kitUrl.split("/archive/")[1] as string).replace(/\.tar\.gz$/, "").split(".");
    const base = `http://${HOST}/archive/`;
    const flipped = `${mac?.[0] === "A" ? "B" : "A"}${mac?.slice(1)}`;
    const otherId = (formUrl.split("/archive/")[1] as string).split(".")[0];
    const altered = [
      `${base}${id}.${version}.${expires}.${flipped}.tar.gz`,
      `${base}${otherId}.${version}.${expires}.${mac}.tar.gz`,
      `${base}${id}.${version}.${Number(expires) + 86_400}.${mac}.tar.gz`,
    ];
    for (const url of altered) {
      const answer = await refusal(url);
      expect(answer.status).toBe(403);
      expect(answer.text).toContain("this download link was not made by this server");
    }
    expect((await refusal(`${base}nothing.tar.gz`)).status).toBe(404);
    expect((await refusal(kitUrl, "POST")).status).toBe(405);
    // A link another server made (another token) is refused; one without a token is another key too.
    const other = await serve(dir, { token: "another-token-0123456789" });
    const foreign = download(
      textOf(
        await (await client(other.handler, "2025-11-25", "another-token-0123456789")).callTool({
          name: "skill",
          arguments: { name: "kit" },
        }),
      ),
    ).url;
    expect((await refusal(foreign)).status).toBe(403);
    expect((await fetchArchive(other.handler, foreign)).status).toBe(200);
    expect((await fetchArchive(handler, kitUrl)).status).toBe(200);
    advance(ARCHIVE_LINK_SECONDS * 1000);
    const expired = await refusal(kitUrl);
    expect(expired.status).toBe(403);
    expect(expired.text).toContain("this download link expired at 2026-01-01T01:00:00.000Z");
    expect(expired.text).toContain("Ask the server again for the skill");
  });

  test("a skill that changed refuses its old link; the new answer's link serves the new files", async () => {
    const { dir, kit } = world();
    const { handler, hub } = await serve(dir);
    const agent = await client(handler);
    const old = download(textOf(await agent.callTool({ name: "skill", arguments: { name: "kit" } }))).url;
    write(join(kit, "references/guide.md"), "A guide, revised.\n");
    const changed = await fetchArchive(handler, old);
    expect(changed.status).toBe(404);
    expect(await changed.text()).toContain("skill 'kit' has changed since this link was made");
    const fresh = download(textOf(await agent.callTool({ name: "skill", arguments: { name: "kit" } }))).url;
    expect(fresh).not.toBe(old);
    const files = unpack(new Uint8Array(await (await fetchArchive(handler, fresh)).arrayBuffer()));
    expect(files.get("references/guide.md")?.bytes.toString()).toBe("A guide, revised.\n");
    // A file that changes while the archive is sent ends it with an error: tar never gets a mix.
    const sending = await fetchArchive(handler, fresh);
    write(join(kit, "scripts/run.sh"), 'echo "changed"\n');
    await expect(sending.arrayBuffer()).rejects.toThrow();
    // A skill no longer served: 404.
    write(join(kit, "SKILL.md"), "no frontmatter\n");
    await hub.refreshSkills();
    const gone = await fetchArchive(handler, fresh);
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain("this server no longer serves that skill");
  });

  test("frozen, a file changed while it is sent never reaches the client: each file is checked before any of it leaves", async () => {
    const m = machine();
    writeSkill(m.skills, "kit");
    // Bytes gzip cannot shrink: the archive's first part leaves before the file has been read to its end.
    const locked = Uint8Array.from({ length: 4 << 20 }, (_, i) => (i * 2654435761) >>> 24);
    write(join(m.skills, "kit", "assets/data.bin"), locked);
    expect((await cli(m, ["lock"])).code).toBe(0);
    const { hub } = testHub({
      home: m.home,
      cwd: m.project,
      env: { SKILLHUB_FROZEN: "1" },
      flags: { project: m.project },
      hub: { env: GIT_ENV, acceptRoots: false },
    });
    const handler = createHttpHandler(hub, { host: "127.0.0.1", token: TOKEN });
    void hub.start();
    await hub.ready;
    closers.push(async () => {
      await handler.close();
      hub.close();
    });
    const agent = await client(handler);
    const { url } = download(textOf(await agent.callTool({ name: "skill", arguments: { name: "kit" } })));
    const response = await fetchArchive(handler, url);
    expect(response.status).toBe(200);
    const body = (response.body as ReadableStream<Uint8Array>).getReader();
    const received: Uint8Array[] = [(await body.read()).value as Uint8Array];
    write(join(m.skills, "kit", "assets/data.bin"), "B".repeat(4 << 20));
    try {
      for (let part = await body.read(); !part.done; part = await body.read()) received.push(part.value);
    } catch {
      // A download that stops is a failed download: what matters is what reached the client before.
    }
    // What arrived, unpacked as far as it goes (a stopped download's gzip has no end).
    const unzipped = gunzipSync(Buffer.concat(received), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
    expect(unzipped.includes("B".repeat(4096))).toBe(false);
  });

  test("links start with server.public_url behind a proxy; a server without a token makes working links too", async () => {
    const { dir } = world();
    const proxied = await serve(dir, { publicUrl: "https://skills.example.com/hub/" });
    const text = textOf(await (await client(proxied.handler)).callTool({ name: "skill", arguments: { name: "kit" } }));
    const { url } = download(text);
    expect(url.startsWith("https://skills.example.com/hub/archive/")).toBe(true);
    // What the proxy forwards: the path under its prefix, to the server's own address.
    const path = url.slice("https://skills.example.com/hub".length);
    expect((await fetchArchive(proxied.handler, `http://${HOST}${path}`)).status).toBe(200);
    const open = await serve(dir, { token: undefined });
    const loopback = download(
      textOf(
        await (await client(open.handler, "2025-11-25", "")).callTool({ name: "skill", arguments: { name: "kit" } }),
      ),
    ).url;
    expect((await fetchArchive(open.handler, loopback)).status).toBe(200);
    expect((await fetchArchive(proxied.handler, loopback)).status).toBe(403);
  });

  test("a stateless server gives working links too", async () => {
    const { dir } = world();
    const { handler } = await serve(dir, { stateless: true });
    const text = textOf(await (await client(handler)).callTool({ name: "skill", arguments: { name: "kit" } }));
    expect((await fetchArchive(handler, download(text).url)).status).toBe(200);
  });

  test("a skill past the limits gets no command: the answer says why, and to save its files with resources/read", async () => {
    const dir = tempDir("skillhub-archive-big-");
    writeSkill(dir, "huge", { description: "A skill with large assets" });
    write(join(dir, "huge/scripts/run.sh"), "echo hi\n");
    // Sparse: 18 MiB on no disk, each file under the 16 MiB resources/read serves one file up to.
    for (const name of ["a", "b"]) {
      write(join(dir, `huge/assets/${name}.bin`), "");
      truncateSync(join(dir, `huge/assets/${name}.bin`), 9 * 1024 * 1024);
    }
    const total = 18 * 1024 * 1024 + "echo hi\n".length + statSync(join(dir, "huge/SKILL.md")).size;
    writeSkill(dir, "crowded", { description: "A skill of many files" });
    for (let i = 0; i < 501; i++) write(join(dir, `crowded/data/${i}.txt`), "x\n");
    const { handler } = await serve(dir);
    const agent = await client(handler);
    const advice = (why: string, name: string) =>
      `No download command is offered: ${why}. To run a script, save it and each file it uses into a new local folder under its relative path, fetching each with resources/read of its URI, skill://${name}/<path> (a client such as Claude Code saves a binary resource to disk without its bytes passing through your context), then run it there; read_skill_file, which returns a file in parts through your context, is for text you must read yourself.`;
    const huge = advice(
      `the files of skill 'huge' total ${total.toLocaleString("en-US")} bytes (18 MiB), more than the 16,777,216 bytes (16 MiB) one download holds`,
      "huge",
    );
    const text = textOf(await agent.callTool({ name: "skill", arguments: { name: "huge" } }));
    expect(text).not.toContain("curl");
    expect(text).toContain(huge);
    const loaded = await agent.callTool({ name: "load_skill", arguments: { skill_name: "huge" } });
    expect((loaded.structuredContent as { fetch: string }).fetch).toEndWith(huge);
    // The way it names works: the script by its URI.
    const read = await agent.readResource({ uri: "skill://huge/<path>".replace("<path>", "scripts/run.sh") });
    expect((read.contents[0] as { text: string }).text).toBe("echo hi\n");
    const crowded = textOf(await agent.callTool({ name: "skill", arguments: { name: "crowded" } }));
    expect(crowded).not.toContain("curl");
    expect(crowded).toContain(
      advice("skill 'crowded' has more than 500 files and folders, the most one download holds", "crowded"),
    );
  });

  test("over stdio, answers are unchanged: no download command", async () => {
    const { dir } = world();
    const local = await connect({ flags: { "skills-dir": [dir] }, env: { SKILLHUB_TOOLS: "all" } });
    closers.push(local.close);
    const answers = [
      textOf(await local.call("skill", { name: "kit" })),
      textOf(await local.call("load_skill", { skill_name: "kit" })),
      textOf(await local.call("get_skill", { context: "new form" })),
      textOf(await local.call("run_script", { skill_path: "forms/new", file: "scripts/new-form.sh", args: {} })),
    ];
    for (const answer of answers) expect(answer).not.toContain("curl");
  });
});

describe("downloads and run lines a reviewer tried to abuse", () => {
  test("at most 2 downloads per address and 4 in all are sent at once; one read to its end or dropped frees its place", async () => {
    const { dir } = world();
    const { handler } = await serve(dir);
    const url = download(
      textOf(await (await client(handler)).callTool({ name: "skill", arguments: { name: "kit" } })),
    ).url;
    const from = (peer: string) => handler.handle(new Request(url, { headers: { host: HOST } }), { peer });
    const first = [await from("10.0.0.1"), await from("10.0.0.1")];
    expect(first.map((r) => r.status)).toEqual([200, 200]);
    const third = await from("10.0.0.1");
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("5");
    expect(await third.text()).toBe(
      "Too Many Requests: this address is downloading 2 skills at once, the most one address may. Retry when one has finished.\n",
    );
    const others = [await from("10.0.0.2"), await from("10.0.0.2")];
    expect(others.map((r) => r.status)).toEqual([200, 200]);
    const full = await from("10.0.0.3");
    expect(full.status).toBe(503);
    expect(full.headers.get("retry-after")).toBe("5");
    expect(await full.text()).toContain("the server is sending 4 downloads");
    unpack(new Uint8Array(await (first[0] as Response).arrayBuffer()));
    await (first[1] as Response).body?.cancel();
    const again = [await from("10.0.0.1"), await from("10.0.0.1")];
    expect(again.map((r) => r.status)).toEqual([200, 200]);
    for (const response of [...others, ...again]) await response.body?.cancel();
  });

  test("a client that takes nothing for the idle limit loses its download and its place; one that reads keeps it", async () => {
    const { dir } = world();
    // The idle limit's timers, fired by the test instead of the clock.
    const hand = handTimers();
    const timers = hand.armed;
    const { handler, logger } = await serve(dir, { readerIdle: { timer: hand.timer } });
    const url = download(
      textOf(await (await client(handler)).callTool({ name: "skill", arguments: { name: "kit" } })),
    ).url;
    const from = (peer: string) => handler.handle(new Request(url, { headers: { host: HOST } }), { peer });
    const held = [await from("10.0.0.1"), await from("10.0.0.2"), await from("10.0.0.3"), await from("10.0.0.4")];
    expect(held.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await from("10.0.0.5")).status).toBe(503);
    // Each download has sent its first part and waits for its client: each one's limit is counting.
    for (let i = 0; i < 500 && timers.size < 4; i++) await Bun.sleep(10);
    expect(timers.size).toBe(4);
    // A client that reads is never stopped: each part it takes starts its limit again, the end stops it.
    unpack(new Uint8Array(await (held[0] as Response).arrayBuffer()));
    expect(timers.size).toBe(3);
    hand.fireAll();
    for (const response of held.slice(1))
      expect(
        await (response as Response).arrayBuffer().then(
          () => "read",
          () => "failed",
        ),
      ).toBe("failed");
    const stopped = logger.lines.filter((line) => line.includes("http: the archive of kit stopped"));
    expect(stopped).toEqual(
      Array(3).fill(expect.stringContaining("stopped: its client read nothing for 120 s, or read too slowly")),
    );
    const again = [await from("10.0.0.5"), await from("10.0.0.6"), await from("10.0.0.7"), await from("10.0.0.8")];
    expect(again.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    for (const response of again) await response.body?.cancel();
  });

  test("a client that keeps a download under 64 KiB/s once the server has waited 30 s for it loses it and its place; one reading faster keeps it", async () => {
    const dir = tempDir("skillhub-archive-slow-");
    writeSkill(dir, "large", { description: "A skill with a large asset" });
    // Random bytes: the archive is as large compressed, about 4 MB.
    const noise = new Uint8Array(4 * 1024 * 1024);
    for (let at = 0; at < noise.length; at += 65_536) crypto.getRandomValues(noise.subarray(at, at + 65_536));
    write(join(dir, "large/assets/noise.bin"), noise);
    const { handler, logger, advance } = await serve(dir);
    const url = download(
      textOf(await (await client(handler)).callTool({ name: "skill", arguments: { name: "large" } })),
    ).url;
    const from = (peer: string) => handler.handle(new Request(url, { headers: { host: HOST } }), { peer });
    const slow = [await from("10.0.0.1"), await from("10.0.0.1")];
    expect(slow.map((r) => r.status)).toEqual([200, 200]);
    const readers = slow.map((r) => (r.body as ReadableStream<Uint8Array>).getReader());
    const taken = [];
    for (const reader of readers) taken.push((await reader.read()).value?.length ?? 0);
    expect((await from("10.0.0.1")).status).toBe(429);
    // Each client has taken one part; the server waits 31 s for each to ask for the next.
    advance(31_000);
    for (const reader of readers)
      expect(
        await reader.read().then(
          () => "read",
          () => "failed",
        ),
      ).toBe("failed");
    expect(logger.lines.filter((line) => line.includes("http: the archive of large stopped"))).toEqual(
      taken.map((bytes) =>
        expect.stringContaining(
          `stopped: its client read too slowly: ${Math.floor(bytes / 1024)} KiB in 31 s, under the 64 KiB/s it must average after 30 s`,
        ),
      ),
    );
    // Their places are free: the address downloads again. This client takes each part as a link of 80 KiB/s
    // would, for more than the 30 s, and gets the whole archive.
    const fair = await from("10.0.0.1");
    expect(fair.status).toBe(200);
    const reader = (fair.body as ReadableStream<Uint8Array>).getReader();
    const parts: Uint8Array[] = [];
    let waited = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      advance((value.length / (80 * 1024)) * 1000);
      waited += value.length / (80 * 1024);
    }
    expect(waited).toBeGreaterThan(30);
    expect(unpack(Buffer.concat(parts)).get("assets/noise.bin")?.bytes.equals(noise)).toBe(true);
    expect(logger.lines.filter((line) => line.includes("stopped"))).toHaveLength(2);
  });

  test("a download lifts its socket's silence limit until it ends: a client reading slowly has the idle limit", async () => {
    const { dir } = world();
    const { handler } = await serve(dir);
    const url = download(
      textOf(await (await client(handler)).callTool({ name: "skill", arguments: { name: "kit" } })),
    ).url;
    const { socket, hooks } = countedSocket();
    const response = await handler.handle(new Request(url, { headers: { host: HOST } }), hooks);
    expect(response.status).toBe(200);
    expect(socket).toEqual({ lifted: 1, restored: 0 });
    unpack(new Uint8Array(await response.arrayBuffer()));
    expect(socket).toEqual({ lifted: 1, restored: 1 });
    // A refused download is answered at once: nothing to lift.
    const expired = await handler.handle(
      new Request(`${url.slice(0, -8)}x.tar.gz`, { headers: { host: HOST } }),
      hooks,
    );
    expect(expired.status).toBe(403);
    expect(socket).toEqual({ lifted: 1, restored: 1 });
  });

  test.if(process.platform === "linux")(
    "a large file is read in chunks as the client takes it, and closed when the client goes",
    async () => {
      const dir = tempDir("skillhub-archive-large-");
      writeSkill(dir, "large", { description: "A skill with a large asset" });
      const asset = write(join(dir, "large/assets/noise.bin"), crypto.getRandomValues(new Uint8Array(8 * 1024 * 1024)));
      const { handler } = await serve(dir);
      const text = textOf(await (await client(handler)).callTool({ name: "skill", arguments: { name: "large" } }));
      const real = realpathSync(asset);
      const isOpen = () =>
        readdirSync("/proc/self/fd").some((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`) === real;
          } catch {
            return false;
          }
        });
      const response = await fetchArchive(handler, download(text).url);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let received = 0;
      while (received < 1024 * 1024) received += (await reader.read()).value?.length ?? 0;
      // Mid-file: the file is open, not read whole.
      expect(isOpen()).toBe(true);
      await reader.cancel();
      for (let i = 0; i < 500 && isOpen(); i++) await Bun.sleep(10);
      expect(isOpen()).toBe(false);
    },
  );

  test("the run line quotes the skill's script path and argument names: pasted into a shell, they run nothing", async () => {
    const dir = tempDir("skillhub-archive-quoted-");
    writeSkill(dir, "odd", { description: "A skill with an odd script name" });
    const script = "scripts/a b;$(touch pwned-path).sh";
    write(join(dir, "odd", script), "echo ran\n");
    writeNode(dir, "forms/evil.md", {
      keywords: ["evil"],
      extra: [
        "scripts:",
        "  - file: scripts/go.sh",
        "    description: Goes",
        "    execution: claude",
        "    args:",
        `      - name: "x';touch pwned-arg;'"`,
        "        description: An argument",
      ].join("\n"),
    });
    write(join(dir, "forms/evil/scripts/go.sh"), 'echo "went"\n');
    const { handler } = await serve(dir);
    const agent = await client(handler);
    const workspace = tempDir("skillhub-archive-quoted-agent-");
    const runs = [
      textOf(await agent.callTool({ name: "skill", arguments: { name: "odd" } })),
      (
        (await agent.callTool({ name: "load_skill", arguments: { skill_name: "forms/evil" } })).structuredContent as {
          fetch: string;
        }
      ).fetch,
    ].map((text) => {
      const { dir: folder, url } = download(text);
      return { folder, url, line: /then run from the same folder: `([^`]+)`/.exec(text)?.[1] as string };
    });
    for (const { folder, url, line } of runs) {
      const bytes = new Uint8Array(await (await fetchArchive(handler, url)).arrayBuffer());
      mkdirSync(join(workspace, folder), { recursive: true });
      const tar = Bun.spawnSync(["tar", "-xzf", "-", "-C", join(workspace, folder)], { stdin: bytes });
      expect(tar.exitCode).toBe(0);
      const ran = Bun.spawnSync(["sh", "-c", line], { cwd: workspace });
      expect(ran.exitCode).toBe(0);
      expect(ran.stdout.toString()).toMatch(/^(ran|went)\n$/);
    }
    expect(readdirSync(workspace).sort()).toEqual([".skillhub-skills"]);
  });

  test("an Agent Skill's run line names a script a runner is known for, or none", async () => {
    const dir = tempDir("skillhub-archive-runnable-");
    writeSkill(dir, "docs-only", { description: "Scripts folder with a readme only" });
    write(join(dir, "docs-only/scripts/README.md"), "How to run.\n");
    writeSkill(dir, "tool", { description: "A readme before its script" });
    write(join(dir, "tool/scripts/README.md"), "How to run.\n");
    write(join(dir, "tool/scripts/run.py"), "print('hi')\n");
    const { handler } = await serve(dir);
    const agent = await client(handler);
    const docsOnly = textOf(await agent.callTool({ name: "skill", arguments: { name: "docs-only" } }));
    expect(download(docsOnly).dir).toBe(".skillhub-skills/docs-only");
    expect(docsOnly).not.toContain("then run");
    const tool = textOf(await agent.callTool({ name: "skill", arguments: { name: "tool" } }));
    expect(tool).toContain("then run from the same folder: `python3 .skillhub-skills/tool/scripts/run.py`.");
  });

  test("two skills of one name from two sources unpack into folders of their own", async () => {
    const first = tempDir("skillhub-archive-first-");
    const second = tempDir("skillhub-archive-second-");
    for (const dir of [first, second]) {
      writeSkill(dir, "dup", { description: `dup of ${dir}` });
      write(join(dir, "dup/scripts/run.sh"), `echo ${dir}\n`);
    }
    const { handler, hub } = await serve([first, second]);
    const agent = await client(handler);
    const shadowed = hub.catalog.shadowed.find((s) => s.skill.name === "dup")?.skill.id as string;
    expect(shadowed).toBeDefined();
    const folders = [];
    for (const name of ["dup", shadowed]) {
      const text = textOf(await agent.callTool({ name: "skill", arguments: { name } }));
      const { dir: folder, url } = download(text);
      folders.push(folder);
      const files = unpack(new Uint8Array(await (await fetchArchive(handler, url)).arrayBuffer()));
      expect(files.get("scripts/run.sh")?.bytes.toString()).toBe(`echo ${name === "dup" ? first : second}\n`);
    }
    expect(folders[0]).toBe(".skillhub-skills/dup");
    expect(folders[1]).toMatch(/^\.skillhub-skills\/dup-[0-9a-f]{8}$/);
  });

  test("a public URL with a space or backtick is escaped; logs name a link's skill and start, never its MAC", async () => {
    const { dir } = world();
    const { handler, logger, advance } = await serve(dir, { publicUrl: "https://skills.example.com/my `hub`/" });
    const text = textOf(await (await client(handler)).callTool({ name: "skill", arguments: { name: "kit" } }));
    const { url } = download(text);
    expect(url.startsWith("https://skills.example.com/my%20%60hub%60/archive/")).toBe(true);
    const local = `http://${HOST}${url.slice("https://skills.example.com/my%20%60hub%60".length)}`;
    const mac = (url.split("/archive/")[1] as string).split(".")[3] as string;
    expect((await fetchArchive(handler, local)).status).toBe(200);
    advance(ARCHIVE_LINK_SECONDS * 1000);
    expect((await fetchArchive(handler, local)).status).toBe(403);
    const said = () => logger.lines.filter((line) => line.includes("/archive/"));
    // The refusal's line is written once its answer has been read (refusal-log.ts).
    for (let i = 0; i < 500 && said().length < 3; i++) await Bun.sleep(10);
    expect(said().length).toBe(3);
    for (const line of said()) {
      expect(line).not.toContain(mac);
      expect(line).toMatch(/\/archive\/.{8}… \(skill [^)]*:kit\)/);
    }
  });
});
