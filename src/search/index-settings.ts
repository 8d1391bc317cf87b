import type { SearchOptions } from "minisearch";
import { BOOSTS } from "./fields.ts";

/** What the full-text index indexes and how it matches (fulltext.ts): sizes, limits, MiniSearch's options. */

/** Bump when fields, boosts or term processing change: persisted indexes of another version are rebuilt. */
export const INDEX_SCHEMA_VERSION = 17;

/**
 * Body characters indexed per skill: the whole body, at every catalog size (a share that
 * shrank with the catalog cost R@3 0.956 → 0.835 at 11,000 skills), read in bounded chunks and
 * never past the 1 MiB instructions cap. `FullTextIndex.empty({ bodyChars })` indexes less (tuning).
 */
export const BODY_CHARS = Number.POSITIVE_INFINITY;
/** Fuzzy matching is on up to this many skills (see FullTextIndex.search). */
export const FUZZY_MAX_DOCUMENTS = 5000;
/** Longest stretch of indexing between two pauses for requests (ms). */
export const SLICE_MS = 8;
/** Headings indexed per skill. */
export const MAX_HEADINGS = 30;

/**
 * Prefix matching from five letters (from four, "store" reached "storage" and "fall"
 * "fallback"; measured on bench/eval's 91 queries, MRR 0.896 → 0.907 at 1,018 skills). It applies to
 * the metadata fields only (score-query.ts).
 */
export const PREFIX_MIN_LENGTH = 5;

export const SEARCH_OPTIONS: SearchOptions = {
  boost: BOOSTS,
  prefix: (term) => term.length >= PREFIX_MIN_LENGTH,
  fuzzy: (term) => (term.length >= 6 ? 0.15 : false),
  maxFuzzy: 2,
  combineWith: "OR",
};
