import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { join, relative } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createHttpHandler, type HttpHandler } from "../../src/transports/http-handler.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { testHub, textOf } from "../helpers/hub.ts";

/**
 * The download command of an answer, run as an agent's shell runs it: real sh, curl and tar against the
 * server on a loopback socket. In front of it, paths that make a download fail as networks do: `/cut/…`
 * sends the first part of the archive and then drops the connection, `/garbage/…` answers 200 with bytes
 * that are no gzip. A failed download leaves no skill folder, or the one that was there, untouched.
 */
afterAll(cleanupTemp);
const closers = closeAfterEach();

/** A skill whose archive spans many chunks (an asset gzip cannot shrink), with an empty folder. */
function skill() {
  const dir = tempDir("skillhub-download-");
  const kit = join(dir, "kit");
  writeSkill(dir, "kit", { description: "A kit of scripts" });
  write(join(kit, "scripts/run.sh"), 'echo "kit ran"\n');
  chmodSync(join(kit, "scripts/run.sh"), 0o755);
  write(join(kit, "references/guide.md"), "A guide.\n");
  write(join(kit, "assets/noise.bin"), crypto.getRandomValues(new Uint8Array(2 * 1024 * 1024)));
  mkdirSync(join(kit, "data/empty"), { recursive: true });
  return { dir, kit };
}

/** The first `bytes` of `body`, then a dropped connection. */
function cutAfter(body: ReadableStream<Uint8Array>, bytes: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done || sent >= bytes) {
        await reader.cancel();
        controller.error();
        return;
      }
      sent += value.length;
      controller.enqueue(value);
    },
  });
}

/** The hub serving `dir` on a loopback port, its links naming that port, with the failing paths in front. */
async function serve(dir: string) {
  const { hub } = testHub({ flags: { "skills-dir": [dir] }, hub: { acceptRoots: false } });
  let handler: HttpHandler | undefined;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const url = new URL(request.url);
      const [, how, ...rest] = url.pathname.split("/");
      if (how === "garbage") return new Response("this is no gzip\n");
      if (how !== "cut") return (handler as HttpHandler).handle(request);
      const real = new Request(`${url.origin}/${rest.join("/")}`, { headers: request.headers });
      const response = await (handler as HttpHandler).handle(real);
      return new Response(cutAfter(response.body as ReadableStream<Uint8Array>, 512 * 1024), response);
    },
  });
  const base = `http://127.0.0.1:${server.port}`;
  handler = createHttpHandler(hub, { host: "127.0.0.1", publicUrl: base });
  void hub.start();
  await hub.ready;
  const client = new Client({ name: "remote-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  closers.push(async () => {
    await client.close();
    await handler?.close();
    await server.stop(true);
    hub.close();
  });
  /** The answer's download command and run line. */
  const commands = async () => {
    const text = textOf(await client.callTool({ name: "skill", arguments: { name: "kit" } }));
    const match = /`(if test -L [^`]+)`, then run from the same folder: `([^`]+)`/.exec(text);
    if (!match) throw new Error(`no download command in: ${text.slice(0, 600)}`);
    return { download: match[1] as string, run: match[2] as string };
  };
  return { commands, base };
}

/** `command` run by sh in `cwd`; not spawnSync: the server answering curl is in this process. */
async function sh(command: string, cwd: string) {
  const run = Bun.spawn(["sh", "-c", command], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: tempDir("skillhub-download-home-") },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ]);
  return { exitCode, stdout, stderr };
}

/** What the download runs, run by itself on `link`: curl, then tar when curl succeeded; how the one that failed ended. */
async function runAlone(link: string) {
  const folder = tempDir("skillhub-download-alone-");
  const fetched = await sh(`curl -fsSL -o skill.tar.gz '${link}'`, folder);
  return fetched.exitCode !== 0 ? fetched : await sh("mkdir skill && tar -xzf skill.tar.gz -C skill", folder);
}

/** The first line of a tool's message, its counts of bytes left out (a cut connection's vary from run to run). */
function firstLine(stderr: string): string {
  return (stderr.split("\n")[0] ?? "").replace(/\d+ bytes/g, "N bytes");
}

/** Every folder and file under `dir`: a folder as "folder", a file as its bytes' hex and whether it runs. */
function tree(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      const rel = relative(dir, path);
      if (entry.isDirectory()) {
        found[rel] = "folder";
        walk(path);
      } else
        found[rel] =
          `${new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex")} ${statSync(path).mode & 0o111 ? "x" : "-"}`;
    }
  };
  walk(dir);
  return found;
}

/** What `.skillhub-skills` holds, hidden folders (a download's temporary one) included. */
function shown(workspace: string): string[] {
  const skills = join(workspace, ".skillhub-skills");
  return existsSync(skills) ? readdirSync(skills).sort() : [];
}

describe("the download command, run by sh with curl and tar", () => {
  test("a success leaves exactly the skill's files and folders, modes kept, and nothing else", async () => {
    const { kit, dir } = skill();
    const { commands } = await serve(dir);
    const { download, run } = await commands();
    const workspace = tempDir("skillhub-download-agent-");
    // The skill's folder gets the mode the agent's umask gives a new folder, not a temporary folder's 0700.
    expect(await sh(`umask 022 && ${download}`, workspace)).toEqual({ exitCode: 0, stdout: "", stderr: "" });
    expect(readdirSync(join(workspace, ".skillhub-skills"))).toEqual(["kit"]);
    const unpacked = join(workspace, ".skillhub-skills/kit");
    expect(tree(unpacked)).toEqual(tree(kit));
    expect(tree(unpacked)["data/empty"]).toBe("folder");
    for (const folder of ["", "data", "data/empty", "scripts"])
      expect(statSync(join(unpacked, folder)).mode & 0o777).toBe(0o755);
    expect(await sh(run, workspace)).toEqual({ exitCode: 0, stdout: "kit ran\n", stderr: "" });
  });

  test("a refused link, a connection cut mid-archive or bytes that are no gzip leave no skill folder, nor a temporary one, and exit as the failing tool does, saying what it says", async () => {
    const { dir } = skill();
    const { commands, base } = await serve(dir);
    const { download } = await commands();
    const url = /'(http[^']+)'/.exec(download)?.[1] as string;
    const at = url.length - ".tar.gz".length - 1;
    const failing = {
      refused: `${url.slice(0, at)}${url[at] === "A" ? "B" : "A"}${url.slice(at + 1)}`,
      cut: url.replace(base, `${base}/cut`),
      garbage: url.replace(base, `${base}/garbage`),
    };
    const left: Record<string, { exitCode: number; said: string; shown: string[] }> = {};
    const alone: Record<string, { exitCode: number; said: string; shown: string[] }> = {};
    for (const [how, link] of Object.entries(failing)) {
      const workspace = tempDir(`skillhub-download-${how}-`);
      const ran = await sh(download.replace(url, link), workspace);
      left[how] = { exitCode: ran.exitCode, said: firstLine(ran.stderr), shown: shown(workspace) };
      const failed = await runAlone(link);
      alone[how] = { exitCode: failed.exitCode, said: firstLine(failed.stderr), shown: [] };
    }
    expect(left).toEqual(alone);
    // curl -f's own status for an HTTP error; tar's, GNU's or bsdtar's, for bytes that are no gzip.
    expect(left.refused).toMatchObject({ exitCode: 22, said: "curl: (22) The requested URL returned error: 403" });
    expect(left.cut?.said).toStartWith("curl: (");
    expect(left.garbage?.exitCode).toBeGreaterThan(0);
  });

  test("a newer version replaces the folder whole; a failed one leaves the old folder as it was", async () => {
    const { kit, dir } = skill();
    const { commands, base } = await serve(dir);
    const workspace = tempDir("skillhub-download-again-");
    expect((await sh((await commands()).download, workspace)).exitCode).toBe(0);
    const unpacked = join(workspace, ".skillhub-skills/kit");
    const old = tree(unpacked);
    rmSync(join(kit, "references"), { recursive: true });
    write(join(kit, "scripts/run.sh"), 'echo "kit ran again"\n');
    const { download, run } = await commands();
    const url = /'(http[^']+)'/.exec(download)?.[1] as string;
    for (const failing of [url.replace(base, `${base}/cut`), url.replace(base, `${base}/garbage`)]) {
      expect((await sh(download.replace(url, failing), workspace)).exitCode).not.toBe(0);
      expect(shown(workspace)).toEqual(["kit"]);
      expect(tree(unpacked)).toEqual(old);
    }
    expect((await sh(download, workspace)).exitCode).toBe(0);
    expect(shown(workspace)).toEqual(["kit"]);
    expect(tree(unpacked)).toEqual(tree(kit));
    expect(await sh(run, workspace)).toEqual({ exitCode: 0, stdout: "kit ran again\n", stderr: "" });
  });

  test("a .skillhub-skills that is a symbolic link stops the command: what it leads to is left untouched", async () => {
    const { dir } = skill();
    const { commands } = await serve(dir);
    const { download } = await commands();
    // A hostile checkout: its .skillhub-skills leads to a folder of the test's own, a decoy.
    const root = tempDir("skillhub-download-link-");
    const decoy = join(root, "decoy");
    write(join(decoy, "kit/keep.txt"), "mine\n");
    const workspace = join(root, "agent");
    mkdirSync(workspace);
    symlinkSync(decoy, join(workspace, ".skillhub-skills"));
    // A `tmp` of the agent's shell naming the decoy: the command removes only a folder mktemp made.
    expect(await sh(`tmp='${decoy}'; ${download}`, workspace)).toEqual({
      exitCode: 1,
      stdout: "",
      stderr: ".skillhub-skills is a symbolic link; nothing was downloaded\n",
    });
    // Neither removed nor added to: no hidden folder of a download either.
    const untouched = () => {
      expect(readdirSync(decoy)).toEqual(["kit"]);
      expect(readdirSync(join(decoy, "kit"))).toEqual(["keep.txt"]);
      expect(readFileSync(join(decoy, "kit/keep.txt"), "utf8")).toBe("mine\n");
    };
    untouched();
    // A link in place of the skill's own folder is replaced, not followed: rm -rf removes the link.
    rmSync(join(workspace, ".skillhub-skills"));
    mkdirSync(join(workspace, ".skillhub-skills"));
    symlinkSync(decoy, join(workspace, ".skillhub-skills/kit"));
    expect((await sh(download, workspace)).exitCode).toBe(0);
    expect(lstatSync(join(workspace, ".skillhub-skills/kit")).isDirectory()).toBe(true);
    untouched();
  });
});
