import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { TAR_END, type TarFile, tarEntry, tarFolder } from "../../src/util/tar.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";

afterAll(cleanupTemp);

/** `files` (after `folders`' entries) as one .tar.gz, unpacked by the system's tar into a new folder. */
function unpacked(files: TarFile[], folders: Uint8Array[][] = []): { dir: string; stderr: string; exitCode: number } {
  const tar = Buffer.concat([...folders.flat(), ...files.flatMap((f) => tarEntry(f)), TAR_END]);
  const dir = tempDir("skillhub-tar-");
  const run = Bun.spawnSync(["tar", "-xzf", "-", "-C", dir], { stdin: gzipSync(tar) });
  return { dir, stderr: run.stderr.toString(), exitCode: run.exitCode };
}

const file = (path: string, text: string | Uint8Array, executable = false): TarFile => ({
  path,
  bytes: typeof text === "string" ? new TextEncoder().encode(text) : text,
  executable,
  mtime: 1_700_000_000,
});

describe("tar writer", () => {
  test("the system's tar unpacks files with their bytes, folders and modes", () => {
    const binary = Uint8Array.from({ length: 1500 }, (_, i) => (i * 7) % 256);
    const { dir, exitCode, stderr } = unpacked([
      file("SKILL.md", "---\nname: x\n---\n"),
      file("scripts/run.sh", "echo hi\n", true),
      file("assets/data.bin", binary),
      file("empty.txt", ""),
      file("exactly-a-block.txt", "x".repeat(512)),
    ]);
    expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: "" });
    expect(readFileSync(join(dir, "SKILL.md"), "utf8")).toBe("---\nname: x\n---\n");
    expect(readFileSync(join(dir, "assets/data.bin")).equals(Buffer.from(binary))).toBe(true);
    expect(readFileSync(join(dir, "empty.txt"), "utf8")).toBe("");
    expect(readFileSync(join(dir, "exactly-a-block.txt"), "utf8")).toBe("x".repeat(512));
    expect(statSync(join(dir, "scripts/run.sh")).mode & 0o111).not.toBe(0);
    expect(statSync(join(dir, "SKILL.md")).mode & 0o111).toBe(0);
    expect(Math.floor(statSync(join(dir, "SKILL.md")).mtimeMs / 1000)).toBe(1_700_000_000);
  });

  test("folders are entries of their own: an empty one is unpacked, mode 0755, and each entry keeps its time", () => {
    const long = `${"d".repeat(150)}/${"e".repeat(120)}`;
    const folders = [tarFolder("empty", 1_600_000_000), tarFolder("scripts", 1_600_000_000), tarFolder(long, 0)];
    const files = [file("scripts/run.sh", "echo hi\n", true), { ...file("old.txt", "old\n"), mtime: -5 }];
    const { dir, exitCode, stderr } = unpacked(files, folders);
    expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: "" });
    for (const folder of ["empty", "scripts", long]) expect(statSync(join(dir, folder)).mode & 0o7777).toBe(0o755);
    expect(readFileSync(join(dir, "scripts/run.sh"), "utf8")).toBe("echo hi\n");
    const tar = Buffer.concat([...folders.flat(), ...files.flatMap((f) => tarEntry(f)), TAR_END]);
    const listed = Bun.spawnSync(["tar", "-tvzf", "-"], {
      stdin: gzipSync(tar),
      env: { TZ: "UTC", PATH: process.env.PATH },
    });
    const lines = listed.stdout.toString().trim().split("\n");
    expect(lines[0]).toMatch(/^drwxr-xr-x .* 2020-09-13 12:26 empty\/$/);
    expect(lines[1]).toMatch(/^drwxr-xr-x .* 2020-09-13 12:26 scripts\/$/);
    expect(lines[2]).toMatch(new RegExp(`^drwxr-xr-x .* 1970-01-01 00:00 ${long}/$`));
    expect(lines[3]).toMatch(/^-rwxr-xr-x .* 2023-11-14 22:13 scripts\/run\.sh$/);
    // A time before 1970 is clamped to it: the field holds no sign.
    expect(lines[4]).toMatch(/^-rw-r--r-- .* 1970-01-01 00:00 old\.txt$/);
  });

  test("names ustar cannot hold (long, or not ASCII) come through a pax header", () => {
    const deep = `${"folder-name/".repeat(12)}file.txt`;
    const long = `${"a".repeat(120)}.txt`;
    const { dir, exitCode, stderr } = unpacked([
      file(deep, "deep\n"),
      file(long, "long\n"),
      file("références/résumé ✓.md", "accents\n"),
      file(`${"b".repeat(150)}/${"c".repeat(90)}.md`, "split\n"),
    ]);
    expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: "" });
    expect(readFileSync(join(dir, deep), "utf8")).toBe("deep\n");
    expect(readFileSync(join(dir, long), "utf8")).toBe("long\n");
    expect(readFileSync(join(dir, "références/résumé ✓.md"), "utf8")).toBe("accents\n");
    expect(readFileSync(join(dir, `${"b".repeat(150)}/${"c".repeat(90)}.md`), "utf8")).toBe("split\n");
  });

  test("a header's checksum is what tar checks: one changed byte is refused", () => {
    const [header] = tarEntry(file("a.txt", "a\n"));
    const broken = Uint8Array.from(header as Uint8Array);
    broken[0] = "b".charCodeAt(0);
    const tar = Buffer.concat([broken, ...tarEntry(file("a.txt", "a\n")).slice(1), TAR_END]);
    const run = Bun.spawnSync(["tar", "-tzf", "-"], { stdin: gzipSync(tar) });
    expect(run.exitCode).not.toBe(0);
  });
});
