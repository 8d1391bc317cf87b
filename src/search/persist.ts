import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Catalog } from "../catalog/catalog.ts";
import { catalogStamps } from "../catalog/catalog-stamps.ts";
import { writeAtomic, writeAtomicSync } from "../util/atomic-write.ts";
import { errnoCode, errorMessage } from "../util/errors.ts";
import { OWN_FILE_MODE } from "../util/own-file.ts";
import type { IndexParts } from "./fulltext.ts";
import {
  decodeIndexFileAsync,
  encodeIndexFile,
  encodeIndexFileAsync,
  IndexFileError,
  type IndexHeader,
  readIndexHeader,
} from "./index-file.ts";
import { INDEX_SCHEMA_VERSION } from "./index-settings.ts";
import { mapOrRead } from "./mapped-file.ts";

/** `stale`: ours, from another SkillHub version — rebuilt without a warning. */
export type LoadResult =
  | { ok: true; header: IndexHeader; parts: IndexParts }
  | { ok: false; missing: boolean; stale?: boolean; reason: string };

/**
 * The persisted index's fingerprint: the catalog's files' stamps (catalogStamps), the sources' labels, the
 * index schema version and the embedding settings.
 */
export function catalogFingerprint(catalog: Catalog, settings: string): string {
  // The sources' labels too: a skill's id is `<label>:<name>`, and a folder's label can change while its
  // files do not (another folder of the same name added beside it).
  const labels = catalog.sources.map((s) => s.label).join("\u0002");
  const rows = `${catalogStamps(catalog)}\u0001${labels}`;
  return Bun.hash(`${INDEX_SCHEMA_VERSION}\u0001${settings}\u0001${rows}`).toString(16);
}

/** One cache file per set of source folders, so projects do not evict each other's index. */
export function indexFilePath(cacheDir: string, sourceDirs: readonly string[]): string {
  return join(cacheDir, `search-index-${Bun.hash(sourceDirs.join("\u0000")).toString(16)}.bin`);
}

/**
 * Read and check a persisted index (index-file.ts), with `pause` between fields; never throws for a
 * missing, foreign or corrupt file, nor for one that is not this user's own regular file
 * (util/own-file.ts), which is not read and is replaced by the next save. The file is mapped, not
 * read: the postings stay in the page cache and only the pages a query reads become resident (most
 * of 18 MB at 10,000 skills is never touched). Safe because every write of an index file goes to a temporary file renamed into place: a
 * mapped file is never changed or truncated, only replaced, and the mapping keeps the old one. Mapped
 * privately, so that nothing written to a decoded array could reach the file. The file's pages a query
 * made resident go back at each memory release, by mapping it again (mapped-file.ts).
 */
export async function loadIndexFile(path: string, pause: () => Promise<void>): Promise<LoadResult> {
  let bytes: Uint8Array;
  let mapped: boolean;
  try {
    ({ bytes, mapped } = mapOrRead(path));
  } catch (error) {
    const missing = errnoCode(error) === "ENOENT";
    return {
      ok: false,
      missing,
      reason: missing ? "no persisted index yet" : `cannot read ${path}: ${errorMessage(error)}`,
    };
  }
  try {
    const header = readIndexHeader(bytes);
    if (header.schema !== INDEX_SCHEMA_VERSION)
      return {
        ok: false,
        missing: false,
        stale: true,
        reason: `${path} has index schema ${header.schema}, this version uses ${INDEX_SCHEMA_VERSION}`,
      };
    const parts = await decodeIndexFileAsync(bytes, pause);
    // Mapped again at each memory release (FullTextIndex.releasePages).
    if (mapped) parts.mapped = { path, bytes };
    return { ok: true, header, parts };
  } catch (error) {
    if (!(error instanceof IndexFileError)) throw error;
    return { ok: false, missing: false, reason: `${path} is corrupt (${error.message})` };
  }
}

/**
 * Write atomically (a reader never sees half a file) and without blocking: encoded in pieces with
 * `pause` between them, written off the event loop piece by piece (writeAtomic), then renamed into place.
 */
export async function saveIndexFile(
  path: string,
  fingerprint: string,
  parts: IndexParts,
  pause: () => Promise<void>,
): Promise<void> {
  const pieces = await encodeIndexFileAsync(indexHeader(fingerprint), parts, pause);
  dropOldIndex(path);
  await writeAtomic(path, pieces, { mode: OWN_FILE_MODE });
}

/** saveIndexFile at shutdown, when the process may exit before an asynchronous write would end. */
export function saveIndexFileSync(path: string, fingerprint: string, parts: IndexParts): void {
  writeIndexFileSync(path, encodeIndexFile(indexHeader(fingerprint), parts));
}

/** An encoded index written atomically, blocking (at shutdown; in a worker, where nothing else waits). */
export function writeIndexFileSync(path: string, pieces: Uint8Array[]): void {
  dropOldIndex(path);
  writeAtomicSync(path, pieces, { mode: OWN_FILE_MODE });
}

/** The header of an index saved now for a catalog of `fingerprint`. */
export function indexHeader(fingerprint: string): IndexHeader {
  return { schema: INDEX_SCHEMA_VERSION, fingerprint, savedAt: new Date().toISOString() };
}

/** The index of SkillHub before schema 9 was JSON, under another name beside this one: it would never be read again. */
function dropOldIndex(path: string): void {
  rmSync(path.replace(/\.bin$/, ".json"), { force: true });
}
