import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Scanner } from "../../src/catalog/scanner.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import { loadIndexFile, saveIndexFile } from "../../src/search/persist.ts";
import { skillBody } from "../../src/skills/agent-skill.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);

const linux = process.platform === "linux";
const pause = () => Promise.resolve();

/** Resident kilobytes of every mapping of `file`, and how many there are (Linux). */
function resident(file: string): { kb: number; mappings: number } {
  let kb = 0;
  let mappings = 0;
  let current = false;
  for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      current = head[1] === file;
      if (current) mappings++;
    } else if (current && line.startsWith("Rss:")) kb += Number(/(\d+)/.exec(line)?.[1]);
  }
  return { kb, mappings };
}

/** 1,200 skills of distinct words each, indexed and saved to a file of about 1.4 MB. */
async function savedIndex(): Promise<{ file: string; words: string[] }> {
  const dir = tempDir();
  const words: string[] = [];
  for (let i = 0; i < 1200; i++) {
    const own = Array.from({ length: 60 }, (_, j) => `w${i.toString(36)}x${j.toString(36)}q`);
    words.push(own[0] as string);
    writeSkill(dir, `skill-${i}`, { description: `Skill number ${i}`, body: `# Part ${i}\n\n${own.join(" ")}\n` });
  }
  const catalog = new Scanner().scan([{ label: "dir1", dir, location: "explicit" }], { maxDepth: 4, maxDirs: 2000 });
  const index = FullTextIndex.empty();
  index.sync(catalog.skills, (s) => skillBody(readFileSync(s.file, "utf8")));
  const file = join(tempDir(), "search-index-test.bin");
  await saveIndexFile(file, "fp", index.snapshot(), pause);
  return { file, words };
}

async function loaded(file: string): Promise<FullTextIndex> {
  const result = await loadIndexFile(file, pause);
  if (!result.ok) throw new Error(result.reason);
  return FullTextIndex.fromParts(result.parts);
}

/**
 * The full collections that follow a release (the server's is `Bun.shrink()`) until `file` has one
 * mapping again, at most 20: JavaScriptCore scans stacks conservatively, so a stale pointer to the old
 * buffer can keep it through one collection, never through the next ones.
 */
async function collected(file: string): Promise<number> {
  let collections = 0;
  while (collections < 20 && resident(file).mappings > 1) {
    await Bun.sleep(10);
    Bun.gc(true);
    collections++;
  }
  return collections;
}

const top = (index: FullTextIndex, words: string[]) => words.map((w) => index.search(w)[0]?.id);

describe("a mapped index gives its resident pages back", () => {
  test.if(linux)("mapping the file again leaves one mapping, few resident pages and the same answers", async () => {
    const { file, words } = await savedIndex();
    const index = await loaded(file);
    const before = top(index, words);
    expect(before.every((id, i) => id === `dir1:skill-${i}`)).toBe(true);
    const touched = resident(file);
    expect(touched.mappings).toBe(1);
    expect(touched.kb).toBeGreaterThan(1000);
    index.releasePages();
    await collected(file);
    const released = resident(file);
    expect(released.mappings).toBe(1);
    // Nothing of the new mapping is resident until a query reads it.
    expect(released.kb).toBe(0);
    expect(top(index, words)).toEqual(before);
    // And again: every release maps it once more.
    index.releasePages();
    await collected(file);
    expect(resident(file).mappings).toBe(1);
    expect(top(index, words)).toEqual(before);
  });

  test.if(linux)("once the file is replaced, the index keeps its mapping and answering", async () => {
    const { file, words } = await savedIndex();
    const index = await loaded(file);
    const before = top(index, words);
    writeFileSync(`${file}.tmp`, "another index entirely");
    renameSync(`${file}.tmp`, file);
    index.releasePages();
    Bun.gc(true);
    expect(top(index, words)).toEqual(before);
    // A newer index of the same size (a save of an unchanged catalog): its header's time differs.
    const other = await savedIndex();
    renameSync(other.file, file);
    index.releasePages();
    expect(top(index, words)).toEqual(before);
  });

  test("an index built here, not loaded, has nothing to map again", () => {
    const index = FullTextIndex.empty();
    index.releasePages();
    expect(index.size).toBe(0);
  });
});

describe("only this user's own regular file is taken for a saved index", () => {
  test.if(process.platform !== "win32")(
    "a FIFO at the index path is refused at once (a search never waits on it); a file others may write is not read",
    async () => {
      const { file } = await savedIndex();
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // Another user of a shared cache folder could make it writable by all: not read.
      chmodSync(file, 0o666);
      const open = await loadIndexFile(file, pause);
      expect(open).toMatchObject({ ok: false, missing: false });
      expect(open.ok ? "" : open.reason).toContain("writable by other users (mode 666)");

      // A FIFO planted there: the load is answered in a child process, which a blocking open would hold.
      rmSync(file);
      expect(Bun.spawnSync(["mkfifo", file]).exitCode).toBe(0);
      const script = `const { loadIndexFile } = await import(${JSON.stringify(join(import.meta.dir, "../../src/search/persist.ts"))});
const result = await loadIndexFile(${JSON.stringify(file)}, () => Promise.resolve());
process.stdout.write(JSON.stringify(result));`;
      const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
      const killer = setTimeout(() => child.kill(), 60_000);
      const out = await new Response(child.stdout).text();
      clearTimeout(killer);
      expect(await child.exited).toBe(0);
      expect(JSON.parse(out)).toMatchObject({ ok: false, missing: false });
      expect(JSON.parse(out).reason).toContain("not a regular file");
    },
  );
});
