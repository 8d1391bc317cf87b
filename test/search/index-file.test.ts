import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Scanner } from "../../src/catalog/scanner.ts";
import { FieldPostings } from "../../src/search/field-postings.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import {
  decodeIndexFile,
  decodeIndexFileAsync,
  encodeIndexFile,
  encodeIndexFileAsync,
  IndexFileError,
  readIndexHeader,
} from "../../src/search/index-file.ts";
import { skillBody } from "../../src/skills/agent-skill.ts";
import { slotStrings, stringsOf } from "../helpers/slot-strings.ts";

const fixture = join(import.meta.dir, "..", "fixtures", "ranking");
const catalog = new Scanner().scan([{ label: "dir1", dir: fixture, location: "explicit" }], {
  maxDepth: 8,
  maxDirs: 1000,
});
const QUERIES = ["invoice totals", "slow sql query", "commit message", "containers database", "review pull request"];
const header = { schema: 9, fingerprint: "abc", savedAt: "2026-01-01T00:00:00.000Z" };

function built(): FullTextIndex {
  const index = FullTextIndex.empty();
  index.sync(catalog.skills, (s) => skillBody(readFileSync(s.file, "utf8")));
  return index;
}

const bytes = (pieces: Uint8Array[]) => new Uint8Array(Buffer.concat(pieces));

describe("persisted index, binary form", () => {
  test("postings keep 16-bit slots up to 65,536 documents and 32-bit past them; frequencies saturate at 255", () => {
    const frozenOf = (slots: number) => {
      const named: (string | undefined)[] = new Array(slots);
      const store = new FieldPostings();
      named[3] = "dir1:a";
      store.add(
        3,
        new Map([
          ["alpha", 1000],
          ["beta", 1],
        ]),
        2,
      );
      named[slots - 1] = "dir1:b";
      store.add(slots - 1, new Map([["alpha", 2]]), 1);
      const ids = slotStrings([...named]);
      store.freeze(ids);
      const hashes = slotStrings([...named].map((id) => (id ? "h" : undefined)));
      const parts = { ids, hashes, fields: new Map([["body", store]]) };
      const loaded = decodeIndexFile(bytes(encodeIndexFile(header, parts)))
        .fields.get("body")
        ?.frozen(slots);
      return { saved: store.frozen(slots), loaded };
    };
    const small = frozenOf(65_536);
    expect(small.saved.docs).toBeInstanceOf(Uint16Array);
    expect([...small.saved.docs]).toEqual([3, 65_535, 3]);
    expect([...small.saved.tfs]).toEqual([255, 2, 1]);
    expect(small.loaded?.docs).toEqual(small.saved.docs);
    const large = frozenOf(70_001);
    expect(large.saved.docs).toBeInstanceOf(Uint32Array);
    expect([...large.saved.docs]).toEqual([3, 70_000, 3]);
    expect(large.loaded?.docs).toBeInstanceOf(Uint32Array);
    expect(large.loaded?.docs).toEqual(large.saved.docs);
    expect(large.loaded?.tfs).toEqual(large.saved.tfs);
  });

  test("a round trip gives the same results, and keeps updating incrementally", async () => {
    const index = built();
    // A removed skill leaves a freed slot: it must round-trip too.
    const [gone, ...rest] = catalog.skills;
    index.sync(rest, (s) => skillBody(readFileSync(s.file, "utf8")));
    const file = bytes(encodeIndexFile(header, index.snapshot()));
    expect(bytes(await encodeIndexFileAsync(header, index.snapshot(), async () => {}))).toEqual(file);
    expect(readIndexHeader(file)).toMatchObject({ schema: 9, fingerprint: "abc" });
    const loaded = FullTextIndex.fromParts(decodeIndexFile(file));
    expect(loaded.size).toBe(index.size);
    // Decoded with pauses (a worker's build arriving): one between every two fields, the same index.
    let pauses = 0;
    const paused = FullTextIndex.fromParts(await decodeIndexFileAsync(file, async () => void pauses++));
    expect(pauses).toBe(index.snapshot().fields.size);
    for (const q of QUERIES) expect(paused.search(q)).toEqual(index.search(q));
    expect(loaded.has(gone?.id ?? "")).toBe(false);
    for (const q of QUERIES) expect(loaded.search(q)).toEqual(index.search(q));
    // A buffer that does not start on an aligned offset (a slice of a larger one) loads the same.
    const shifted = new Uint8Array(file.length + 3);
    shifted.set(file, 3);
    expect(FullTextIndex.fromParts(decodeIndexFile(shifted.subarray(3))).search("invoice")).toEqual(
      index.search("invoice"),
    );
    const [first, ...others] = rest;
    expect(loaded.sync(others, () => "")).toEqual({ added: 0, updated: 0, removed: 1 });
    expect(loaded.search("invoice").map((h) => h.id)).not.toContain(first?.id);
  });

  test("anything that does not add up is an IndexFileError, never a half-loaded index", () => {
    const file = bytes(encodeIndexFile(header, built().snapshot()));
    const broken: Uint8Array[] = [
      new Uint8Array(0),
      new TextEncoder().encode('{"format":"skillhub-search-index"}'),
      file.subarray(0, 40),
      file.subarray(0, file.length - 100),
    ];
    // Every 97th byte past the header flipped, one at a time: some land in postings, lengths, strings.
    const base = readIndexHeader(file).base;
    for (let at = base; at < file.length; at += 97) {
      const copy = file.slice();
      copy[at] = (copy[at] as number) ^ 0xff;
      broken.push(copy);
    }
    let refused = 0;
    for (const b of broken) {
      try {
        const parts = decodeIndexFile(b);
        // A flip inside a posting, a term frequency or a length still decodes: the index must then
        // still answer, with documents that exist.
        for (const hit of FullTextIndex.fromParts(parts).search("invoice totals"))
          expect(stringsOf(parts.ids)).toContain(hit.id);
      } catch (error) {
        expect(error).toBeInstanceOf(IndexFileError);
        refused++;
      }
    }
    expect(refused).toBeGreaterThanOrEqual(4);
  });

  test("a posting that names a slot past the documents is skipped when scored (postings are not all read on load)", () => {
    const index = built();
    const parts = index.snapshot();
    const expected = index.search("invoice totals");
    const file = bytes(encodeIndexFile(header, parts));
    // Every posting of the description field pointed past the last document.
    const decoded = decodeIndexFile(file.slice());
    const frozen = decoded.fields.get("description")?.frozen(decoded.ids.length);
    if (!frozen) throw new Error("no description field");
    const damaged = new Map(decoded.fields);
    const docs = frozen.docs.map(() => decoded.ids.length + 7);
    damaged.set("description", FieldPostings.fromFrozen({ ...frozen, docs }, decoded.ids));
    const hits = FullTextIndex.fromParts({ ...decoded, fields: damaged }).search("invoice totals");
    expect(hits.length).toBeGreaterThan(0);
    for (const hit of hits) expect(stringsOf(decoded.ids)).toContain(hit.id);
    // The other fields still score: the best hit is the undamaged index's.
    expect(hits[0]?.id).toBe(expected[0]?.id as string);
  });
});
