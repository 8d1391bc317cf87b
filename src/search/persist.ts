import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Catalog } from "../catalog/catalog.ts";
import { errnoCode, errorMessage } from "../util/errors.ts";
import { INDEX_SCHEMA_VERSION, type PersistedData } from "./fulltext.ts";

const FORMAT = "skillhub-search-index";

export interface PersistedIndex {
  format: typeof FORMAT;
  schema: number;
  /** catalogFingerprint() of the catalog it was built from. */
  fingerprint: string;
  savedAt: string;
  data: PersistedData;
}

/** `stale`: ours, from another SkillHub version — rebuilt without a warning. */
export type LoadResult =
  | { ok: true; value: PersistedIndex }
  | { ok: false; missing: boolean; stale?: boolean; reason: string };

/**
 * Seed 000 §4.2's fingerprint: every served skill file's path, mtime and size,
 * sorted, plus the index schema version and the embedding settings.
 */
export function catalogFingerprint(catalog: Catalog, settings: string): string {
  const rows = catalog.skills.map((s) => `${s.file}\u0000${s.mtimeMs}\u0000${s.size}`).sort();
  return Bun.hash(`${INDEX_SCHEMA_VERSION}\u0001${settings}\u0001${rows.join("\u0001")}`).toString(16);
}

/** One cache file per set of source folders, so projects do not evict each other's index. */
export function indexFilePath(cacheDir: string, sourceDirs: readonly string[]): string {
  return join(cacheDir, `search-index-${Bun.hash(sourceDirs.join("\u0000")).toString(16)}.json`);
}

export function loadIndexFile(path: string): LoadResult {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const missing = errnoCode(error) === "ENOENT";
    return {
      ok: false,
      missing,
      reason: missing ? "no persisted index yet" : `cannot read ${path}: ${errorMessage(error)}`,
    };
  }
  try {
    const value = JSON.parse(text) as Partial<PersistedIndex>;
    if (value.format !== FORMAT) return { ok: false, missing: false, reason: `${path} is not a SkillHub search index` };
    if (value.schema !== INDEX_SCHEMA_VERSION) {
      return {
        ok: false,
        missing: false,
        stale: true,
        reason: `${path} has index schema ${value.schema}, this version uses ${INDEX_SCHEMA_VERSION}`,
      };
    }
    if (!value.data || typeof value.data !== "object" || typeof value.fingerprint !== "string") {
      return { ok: false, missing: false, reason: `${path} is incomplete` };
    }
    return { ok: true, value: value as PersistedIndex };
  } catch (error) {
    return { ok: false, missing: false, reason: `${path} is corrupt (${errorMessage(error)})` };
  }
}

/** Write atomically: a reader never sees half a file. */
export function saveIndexFile(path: string, fingerprint: string, data: PersistedIndex["data"]): void {
  const value: PersistedIndex = {
    format: FORMAT,
    schema: INDEX_SCHEMA_VERSION,
    fingerprint,
    savedAt: new Date().toISOString(),
    data,
  };
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(value));
  renameSync(temp, path);
}
