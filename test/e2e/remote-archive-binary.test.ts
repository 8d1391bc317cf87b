import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { ArchiveLinks } from "../../src/transports/archive-links.ts";
import { TokenKey } from "../../src/transports/token-key.ts";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { startHttpBinary } from "../helpers/http-binary.ts";
import { writeNode } from "../helpers/tree.ts";
import { eventually } from "../helpers/wait.ts";

/**
 * A remote agent of a shared hub (docs/http.md, "Downloading a skill's folder"): the compiled binary serves
 * over HTTP with a token; the agent's client loads a skill, and its shell, which has no token, runs the
 * command from the answer with the system's curl and tar, then the script's command line. The files
 * unpacked are the skill's, modes included; what read_skill_file never serves is not among them; a link
 * altered by a byte, or signed under the token but expired, is refused.
 */
afterAll(cleanupTemp);

const TOKEN = "e2e-archive-token-0123456789abcdef";
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0xff, 0, 7]);

function skills() {
  const dir = tempDir("skillhub-e2e-archive-");
  const kit = join(dir, "invoice-kit");
  writeSkill(dir, "invoice-kit", {
    description: "Add up the totals of an invoice",
    body: "# Invoice kit\n\nRun `bash scripts/total.sh` from this folder.\n",
  });
  write(
    join(kit, "scripts/total.sh"),
    'cd "$(dirname "$0")/.." && echo "total: $(($(cat templates/rates.txt) * 3))"\n',
  );
  chmodSync(join(kit, "scripts/total.sh"), 0o755);
  write(join(kit, "templates/rates.txt"), "14\n");
  write(join(kit, "assets/logo.png"), PNG);
  write(join(kit, "references/a long name/notes ünïcode.md"), "notes\n".repeat(5000));
  // Never served: version-control metadata, a link out of the folder, a nested skill's files.
  write(join(kit, ".git/config"), "[remote]\n\turl = https://user:secret@example.com/x.git\n");
  symlinkSync(write(join(tempDir("skillhub-e2e-outside-"), "secret.txt"), "outside\n"), join(kit, "outside.txt"));
  writeSkill(kit, "nested", { description: "A nested skill" });
  writeNode(dir, "_root.md", { keywords: ["global"] });
  writeNode(dir, "forms/new.md", {
    keywords: ["form", "forms", "component"],
    extra: [
      "scripts:",
      "  - file: scripts/new-form.sh",
      "    description: Makes a form component",
      "    execution: claude",
      "    args:",
      "      - name: component_name",
      "        description: The component's name",
      "        required: true",
    ].join("\n"),
  });
  // Its output lands where it runs: the agent's folder, as run_script's does in the project's.
  write(
    join(dir, "forms/new/scripts/new-form.sh"),
    'echo "form $SKILL_ARG_COMPONENT_NAME" > form.txt && cat form.txt\n',
  );
  return { dir, kit };
}

/** Every file under `dir`, relative, with whether it is executable. */
function filesUnder(dir: string): Map<string, boolean> {
  const found = new Map<string, boolean>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else found.set(relative(dir, path), (statSync(path).mode & 0o111) !== 0);
    }
  };
  walk(dir);
  return found;
}

/** The commands in an answer's backticks: the download, then the run line. */
function commands(text: string): { download: string; run: string; folder: string } {
  const match = /`(if test -L [^`]* mv "\$tmp\/skill" (\S+) [^`]*)`, then run from the same folder: `([^`]+)`/.exec(
    text,
  );
  if (!match) throw new Error(`no download command in: ${text.slice(0, 800)}`);
  return { download: match[1] as string, folder: match[2] as string, run: match[3] as string };
}

function sh(command: string, cwd: string) {
  const run = Bun.spawnSync(["sh", "-c", command], { cwd, env: { PATH: process.env.PATH ?? "" } });
  return { exitCode: run.exitCode, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}

describe("a remote agent downloads a skill with the command from the answer, and runs it", () => {
  test.each(["2025-11-25", "2026-07-28"] as const)(
    "revision %s",
    async (revision) => {
      const { dir, kit } = skills();
      const home = tempDir("skillhub-e2e-archive-home-");
      const server = await startHttpBinary(binary(), ["--skills-dir", dir, "--no-watch", "--tools", "all"], {
        env: { PATH: process.env.PATH ?? "", HOME: home, SKILLHUB_HTTP_TOKEN: TOKEN },
        cwd: home,
      });
      const client = new Client(
        { name: "remote-agent", version: "1.0.0" },
        revision === "2026-07-28"
          ? { versionNegotiation: { mode: { pin: revision } } }
          : { supportedProtocolVersions: [revision] },
      );
      try {
        await client.connect(
          new StreamableHTTPClientTransport(new URL(server.url), {
            requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
          }),
        );
        const workspace = tempDir("skillhub-e2e-agent-");

        // An Agent Skill through the skill tool: the folder, bytes and modes as the server has them.
        const loaded = await client.callTool({ name: "skill", arguments: { name: "invoice-kit" } });
        const text = (loaded.content as { text: string }[])[0]?.text ?? "";
        const kitCommands = commands(text);
        expect(kitCommands.run).toBe("bash .skillhub-skills/invoice-kit/scripts/total.sh");
        const fetched = sh(kitCommands.download, workspace);
        expect(fetched).toEqual({ exitCode: 0, stdout: "", stderr: "" });
        const unpacked = join(workspace, kitCommands.folder);
        const files = filesUnder(unpacked);
        expect([...files.keys()].sort()).toEqual([
          "SKILL.md",
          "assets/logo.png",
          "references/a long name/notes ünïcode.md",
          "scripts/total.sh",
          "templates/rates.txt",
        ]);
        for (const path of files.keys())
          expect(readFileSync(join(unpacked, path)).equals(readFileSync(join(kit, path)))).toBe(true);
        expect(files.get("scripts/total.sh")).toBe(true);
        expect(files.get("templates/rates.txt")).toBe(false);
        for (const never of [".git", "outside.txt", "nested"]) expect(existsSync(join(unpacked, never))).toBe(false);
        expect(sh(kitCommands.run, workspace)).toEqual({ exitCode: 0, stdout: "total: 42\n", stderr: "" });
        // Nothing of the server's folders in the answer.
        expect(text).not.toContain(dir);

        // A tree node through get_skill: the script's command line, its argument filled in as a model does.
        const routed = await client.callTool({ name: "get_skill", arguments: { context: "a new form component" } });
        const form = commands((routed.structuredContent as { fetch: string }).fetch);
        expect(sh(form.download, workspace).exitCode).toBe(0);
        const run = form.run.replace("'<component_name>'", "'Login'");
        expect(run).toBe(`SKILL_ARG_COMPONENT_NAME='Login' bash ${form.folder}/scripts/new-form.sh`);
        expect(sh(run, workspace)).toEqual({ exitCode: 0, stdout: "form Login\n", stderr: "" });
        expect(readFileSync(join(workspace, "form.txt"), "utf8")).toBe("form Login\n");

        // A link altered by one character: curl fails (-f), so nothing is unpacked or moved; the server says why.
        const url = /'(http[^']+)'/.exec(kitCommands.download)?.[1] as string;
        const at = url.length - ".tar.gz".length - 1;
        const altered = `${url.slice(0, at)}${url[at] === "A" ? "B" : "A"}${url.slice(at + 1)}`;
        const other = tempDir("skillhub-e2e-agent-other-");
        const refused = sh(kitCommands.download.replace(url, altered), other);
        expect(refused.exitCode).not.toBe(0);
        expect(refused.stderr).toContain("403");
        expect(filesUnder(other).size).toBe(0);
        expect(existsSync(join(other, kitCommands.folder))).toBe(false);
        const answer = await fetch(altered);
        expect(answer.status).toBe(403);
        expect(await answer.text()).toContain("this download link was not made by this server");
        // A link signed under the server's token, but two hours ago: expired.
        const [, name = ""] = url.split("/archive/");
        const [id = "", version = ""] = name.split(".");
        const old = new ArchiveLinks(new TokenKey(TOKEN), () => Date.now() - 2 * 3600_000).path(
          Buffer.from(id, "base64url").toString(),
          version,
        );
        const expired = sh(kitCommands.download.replace(url, `${server.base}${old}`), other);
        expect(expired.exitCode).not.toBe(0);
        expect(expired.stderr).toContain("403");
        const expiredAnswer = await fetch(`${server.base}${old}`);
        expect(expiredAnswer.status).toBe(403);
        expect(await expiredAnswer.text()).toContain("this download link expired at");
        // The same, signed now: the server takes it, so what refused the other was its age.
        const fresh = new ArchiveLinks(new TokenKey(TOKEN)).path(Buffer.from(id, "base64url").toString(), version);
        expect((await fetch(`${server.base}${fresh}`)).status).toBe(200);
        // The token's endpoint still wants the token; the link alone opens nothing else.
        expect((await fetch(server.url, { method: "POST" })).status).toBe(401);
      } finally {
        await client.close();
        expect(await server.stop()).toBe(0);
      }
    },
    120_000,
  );
});

/** A line the server's logger writes: time, name, level, message. */
const LOG_LINE = /^\d{4}-\d\d-\d\dT[\d:.]+Z skillhub (DEBUG|INFO|WARN|ERROR) /;

describe("a skill file that changes while its archive is downloaded", () => {
  test("stops the download, and the server's log says so in one line, with no stack trace", async () => {
    const dir = tempDir("skillhub-e2e-changing-");
    writeSkill(dir, "kit", { description: "A kit with a large asset" });
    // More than the loopback connection buffers: the archive is still being read when the file changes.
    const large = join(dir, "kit/assets/large.bin");
    write(large, randomBytes(12 * 1024 * 1024));
    const home = tempDir("skillhub-e2e-changing-home-");
    const server = await startHttpBinary(binary(), ["--skills-dir", dir, "--no-watch"], {
      env: { PATH: process.env.PATH ?? "", HOME: home, SKILLHUB_HTTP_TOKEN: TOKEN },
      cwd: home,
    });
    const client = new Client({ name: "remote-agent", version: "1.0.0" });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
        }),
      );
      const loaded = await client.callTool({ name: "skill", arguments: { name: "kit" } });
      const text = (loaded.content as { text: string }[])[0]?.text ?? "";
      const url = /'(http[^']+\/archive\/[^']+)'/.exec(text)?.[1] as string;
      const response = await fetch(url);
      expect(response.status).toBe(200);
      const body = (response.body as ReadableStream<Uint8Array>).getReader();
      await body.read();
      write(large, randomBytes(12 * 1024 * 1024));
      const failed = await (async () => {
        try {
          for (let part = await body.read(); !part.done; part = await body.read());
          return false;
        } catch {
          return true;
        }
      })();
      expect(failed).toBe(true);
      await eventually(() => server.stderr().includes("changed while it was sent"));
    } finally {
      await client.close();
      expect(await server.stop()).toBe(0);
    }
    // Stopped, the server has written all it will: each line of its log is a log line, and one names the archive.
    const lines = server.stderr().trimEnd().split("\n");
    expect(lines.filter((line) => !LOG_LINE.test(line))).toEqual([]);
    expect(lines.filter((line) => line.includes("archive"))).toEqual([
      expect.stringContaining("WARN  http: the archive of kit stopped: assets/large.bin changed while it was sent"),
    ]);
  }, 120_000);
});
