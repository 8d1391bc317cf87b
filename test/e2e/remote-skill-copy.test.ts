import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { startHttpBinary } from "../helpers/http-binary.ts";

/**
 * A client that shares nothing with the server but HTTP, as a remote agent
 * does (docs/http.md, "Fetching files one by one"): it loads
 * a skill, fetches every file it names by URI (read_skill_file in parts, or
 * resources/read), writes them into a fresh local folder under the same
 * relative paths and runs the script there. Nothing it receives holds the
 * server's skill folder.
 */
afterAll(cleanupTemp);

const GUIDE = "A line of the guide, with ünïcode.\n".repeat(2500);
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3]);

function skillWithScript(): { skills: string; folder: string } {
  const skills = tempDir("skillhub-remote-copy-");
  const folder = join(skills, "invoice-totals");
  writeSkill(skills, "invoice-totals", {
    description: "Add up the totals of an invoice",
    body: "# Invoice totals\n\nRun `sh scripts/total.sh` from this folder; it reads templates/rates.txt.\n",
  });
  write(
    join(folder, "scripts/total.sh"),
    'cd "$(dirname "$0")/.." && echo "total: $(($(cat templates/rates.txt) * 3)) ($(wc -c < references/guide.md) bytes of guide)"\n',
  );
  write(join(folder, "templates/rates.txt"), "14\n");
  // Longer than one answer: read in parts from each next_offset.
  write(join(folder, "references/guide.md"), GUIDE);
  write(join(folder, "assets/logo.png"), PNG);
  return { skills, folder };
}

describe("a remote client copies a skill to its own disk and runs its script there", () => {
  test.each(["2025-11-25", "2026-07-28"] as const)(
    "revision %s",
    async (revision) => {
      const { skills, folder } = skillWithScript();
      const home = tempDir("skillhub-remote-copy-home-");
      const server = await startHttpBinary(binary(), ["--skills-dir", skills, "--no-watch"], {
        env: { PATH: process.env.PATH ?? "", HOME: home },
        cwd: home,
      });
      const received: string[] = [];
      const client = new Client(
        { name: "remote-agent", version: "1.0.0" },
        revision === "2026-07-28"
          ? { versionNegotiation: { mode: { pin: revision } } }
          : { supportedProtocolVersions: [revision] },
      );
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
        received.push(client.getInstructions() ?? "");
        const loaded = await client.callTool({ name: "load_skill", arguments: { skill_name: "invoice-totals" } });
        received.push(JSON.stringify(loaded));
        const answer = loaded.structuredContent as { path: string; files: { path: string; uri: string }[] };
        expect(answer.path).toBe("skill://invoice-totals");
        const local = tempDir("skillhub-agent-copy-");
        for (const file of answer.files) {
          let bytes: Buffer;
          if (file.path.endsWith(".png")) {
            // Through the skills extension: the resource by its URI.
            const read = await client.readResource({ uri: file.uri });
            received.push(JSON.stringify(read));
            const content = read.contents[0] as { blob?: string; text?: string };
            bytes = content.blob ? Buffer.from(content.blob, "base64") : Buffer.from(content.text ?? "");
          } else {
            // Through read_skill_file by URI, part after part.
            const parts: Buffer[] = [];
            let offset: number | undefined = 0;
            while (offset !== undefined) {
              const read = await client.callTool({
                name: "read_skill_file",
                arguments: { skill_name: "invoice-totals", file_path: file.uri, offset },
              });
              received.push(JSON.stringify(read));
              const part = read.structuredContent as { content: string; encoding: string; next_offset?: number };
              parts.push(Buffer.from(part.content, part.encoding === "base64" ? "base64" : "utf8"));
              offset = part.next_offset;
            }
            bytes = Buffer.concat(parts);
          }
          write(join(local, file.path), bytes);
          expect(bytes.equals(readFileSync(join(folder, file.path)))).toBe(true);
        }
        const guideParts = received.filter((r) => r.includes('"next_offset"')).length;
        expect(guideParts).toBeGreaterThan(0);
        const run = Bun.spawnSync(["sh", join(local, "scripts/total.sh")], { cwd: dirname(local) });
        expect(run.stdout.toString()).toBe(`total: 42 (${Buffer.byteLength(GUIDE)} bytes of guide)\n`);
        for (const path of new Set([skills, realpathSync(skills)])) expect(received.join("\n")).not.toContain(path);
      } finally {
        await client.close();
        expect(await server.stop()).toBe(0);
      }
    },
    120_000,
  );
});

describe("a remote client fetches every file a skill's text links to, by the link as written", () => {
  test.each(["2025-11-25", "2026-07-28"] as const)(
    "revision %s",
    async (revision) => {
      const skills = tempDir("skillhub-remote-links-");
      writeSkill(skills, "subagents", {
        description: "Dispatch subagents for a plan",
        body: [
          "# Subagents",
          "",
          "Read [the API](references/api.md#auth), [my notes](references/my%20notes.md) and [the logo](./assets/logo.png).",
          "Run [the runner](scripts/run.py?mode=check); review with [the reviewer](../code-review/code-reviewer.md).",
          "",
        ].join("\n"),
      });
      write(join(skills, "subagents", "references", "api.md"), "# Auth\n");
      write(join(skills, "subagents", "references", "my notes.md"), "notes\n");
      write(join(skills, "subagents", "assets", "logo.png"), PNG);
      write(join(skills, "subagents", "scripts", "run.py"), "print('check')\n");
      writeSkill(skills, "code-review", { description: "Review code before merging" });
      write(join(skills, "code-review", "code-reviewer.md"), "# Reviewer\n");
      const home = tempDir("skillhub-remote-links-home-");
      const server = await startHttpBinary(binary(), ["--skills-dir", skills, "--no-watch"], {
        env: { PATH: process.env.PATH ?? "", HOME: home },
        cwd: home,
      });
      const client = new Client(
        { name: "remote-agent", version: "1.0.0" },
        revision === "2026-07-28"
          ? { versionNegotiation: { mode: { pin: revision } } }
          : { supportedProtocolVersions: [revision] },
      );
      /** A file's bytes from a read_skill_file answer, or from a resources/read one. */
      const bytesOf = (answer: Record<string, any>) =>
        answer.content !== undefined
          ? Buffer.from(answer.content, answer.encoding === "base64" ? "base64" : "utf8")
          : Buffer.from(
              answer.contents[0].blob ?? answer.contents[0].text,
              answer.contents[0].blob ? "base64" : "utf8",
            );
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
        const loaded = await client.callTool({ name: "skill", arguments: { name: "subagents" } });
        const text = (loaded.content as { text: string }[])[0]?.text ?? "";
        const base = /^Base directory: (\S+)$/m.exec(text)?.[1];
        expect(base).toBe("skill://subagents");
        const links = [...text.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1] as string);
        expect(links).toHaveLength(5);
        for (const link of links) {
          const onDisk = join(skills, "subagents", decodeURIComponent(link.split(/[?#]/)[0] as string));
          // From offset 0, as a client copying files reads (docs/http.md): without one, an image comes as an image.
          const byTool = await client.callTool({
            name: "read_skill_file",
            arguments: { skill_name: "subagents", file_path: link, offset: 0 },
          });
          const answer = byTool.structuredContent as Record<string, any>;
          if (link.startsWith("../")) {
            // The skill beside it: the answer names the URI to read instead.
            const uri = /its URI (skill:\/\/\S+)\./.exec(answer.error.message)?.[1] as string;
            expect(uri).toBe("skill://code-review/code-reviewer.md");
            expect(bytesOf(await client.readResource({ uri })).equals(readFileSync(onDisk))).toBe(true);
            continue;
          }
          expect({ link, bytes: bytesOf(answer).equals(readFileSync(onDisk)) }).toEqual({ link, bytes: true });
          // The same link under the base directory, as a client resolving it as a URI would send it.
          const read = await client.readResource({ uri: `${base}/${link.replace(/^\.\//, "")}` });
          expect({ link, bytes: bytesOf(read).equals(readFileSync(onDisk)) }).toEqual({ link, bytes: true });
        }
      } finally {
        await client.close();
        expect(await server.stop()).toBe(0);
      }
    },
    120_000,
  );
});
