import MiniSearch, { type Options, type SearchOptions } from "minisearch";
import type { Skill } from "../skills/skill.ts";
import { decodeIndex, type EncodedIndex, encodeIndex } from "./index-codec.ts";
import { searchName } from "./search-name.ts";
import { processTerm } from "./text.ts";

/** What is persisted: the index and the content hash of every skill in it. */
export interface PersistedData {
  index: EncodedIndex;
  hashes: Record<string, string>;
}

/** Bump when fields, boosts or term processing change: persisted indexes of another version are rebuilt. */
export const INDEX_SCHEMA_VERSION = 6;

/** Body characters indexed per skill at most (tuned on bench/eval: 3,000 beat 1,000–2,000 and 6,000). */
export const BODY_CHARS = 3000;
/**
 * Body characters indexed over the whole catalog: past 1,000 skills each gets
 * a shorter share (never under 300), so memory and build time stay bounded.
 */
export const BODY_BUDGET = 3_000_000;
export const MIN_BODY_CHARS = 300;
/** Fuzzy matching is on up to this many skills (see FullTextIndex.search). */
export const FUZZY_MAX_DOCUMENTS = 5000;
/** Headings indexed per skill. */
export const MAX_HEADINGS = 30;

export interface IndexedDoc {
  id: string;
  name: string;
  description: string;
  tags: string;
  category: string;
  keywords: string;
  headings: string;
  body: string;
}

/** Field weights: the name strongest, the body weakest (DESIGN §7.1); tuned on bench/eval. */
export const BOOSTS: Record<keyof Omit<IndexedDoc, "id">, number> = {
  name: 4,
  tags: 3,
  keywords: 3,
  category: 2,
  description: 4,
  headings: 1,
  body: 0.8,
};

const FIELDS = Object.keys(BOOSTS) as (keyof Omit<IndexedDoc, "id">)[];

export const SEARCH_OPTIONS: SearchOptions = {
  boost: BOOSTS,
  prefix: (term) => term.length >= 4,
  fuzzy: (term) => (term.length >= 6 ? 0.15 : false),
  maxFuzzy: 2,
  combineWith: "OR",
};

const OPTIONS: Options<IndexedDoc> = {
  fields: FIELDS,
  idField: "id",
  storeFields: [],
  processTerm,
  searchOptions: SEARCH_OPTIONS,
};

export interface FullTextHit {
  id: string;
  /** MiniSearch's BM25+ score (unbounded). */
  raw: number;
  /** Query terms (processed) that matched this document. */
  queryTerms: string[];
  /** Document terms that matched, with the fields they matched in. */
  match: Record<string, string[]>;
}

export interface SyncStats {
  added: number;
  updated: number;
  removed: number;
}

/**
 * MiniSearch over the catalog's skills, kept in step with it incrementally:
 * only skills whose content hash changed are re-indexed.
 */
export class FullTextIndex {
  private constructor(
    private readonly mini: MiniSearch<IndexedDoc>,
    /** id → content hash of what is indexed. */
    private readonly hashes: Map<string, string>,
    private readonly bodyChars = BODY_CHARS,
  ) {}

  /** An empty index. `tuning` overrides search options and body length (bench/tune.ts). */
  static empty(tuning: { search?: SearchOptions; bodyChars?: number } = {}): FullTextIndex {
    const options = tuning.search ? { ...OPTIONS, searchOptions: { ...SEARCH_OPTIONS, ...tuning.search } } : OPTIONS;
    return new FullTextIndex(new MiniSearch(options), new Map(), tuning.bodyChars);
  }

  /** Restore a persisted index (see index-codec.ts), yielding between batches. */
  static async fromJSON(
    json: PersistedData,
    tick: () => Promise<void> = () => new Promise((r) => setTimeout(r, 0)),
  ): Promise<FullTextIndex> {
    const mini = await decodeIndex<IndexedDoc>(json.index, OPTIONS, tick);
    return new FullTextIndex(mini, new Map(Object.entries(json.hashes)));
  }

  toJSON(): PersistedData {
    return { index: encodeIndex(this.mini as MiniSearch<unknown>), hashes: Object.fromEntries(this.hashes) };
  }

  get size(): number {
    return this.hashes.size;
  }

  has(id: string): boolean {
    return this.hashes.has(id);
  }

  /** Bring the index in line with `skills`; `body` gives a skill's body text when it must be (re)indexed. */
  sync(skills: readonly Skill[], body: (skill: Skill) => string): SyncStats {
    const { stats, fresh } = this.plan(skills);
    const chars = this.bodyShare(skills.length);
    this.mini.addAll(fresh.map((s) => toDoc(s, body(s), chars)));
    return stats;
  }

  /** `sync` in batches, pausing between them so a large first build does not stall requests. */
  async syncAsync(
    skills: readonly Skill[],
    body: (skill: Skill) => string,
    tick: () => Promise<void>,
    batch = 50,
  ): Promise<SyncStats> {
    const { stats, fresh } = this.plan(skills);
    const chars = this.bodyShare(skills.length);
    for (let i = 0; i < fresh.length; i += batch) {
      this.mini.addAll(fresh.slice(i, i + batch).map((s) => toDoc(s, body(s), chars)));
      await tick();
    }
    return stats;
  }

  private bodyShare(documents: number): number {
    return Math.max(MIN_BODY_CHARS, Math.min(this.bodyChars, Math.floor(BODY_BUDGET / Math.max(1, documents))));
  }

  /** Drop removed and changed skills now; return the skills to add. */
  private plan(skills: readonly Skill[]): { stats: SyncStats; fresh: Skill[] } {
    const stats: SyncStats = { added: 0, updated: 0, removed: 0 };
    const wanted = new Map(skills.map((s) => [s.id, s]));
    const stale: string[] = [];
    for (const [id, hash] of this.hashes) {
      const skill = wanted.get(id);
      if (!skill) {
        stale.push(id);
        stats.removed++;
      } else if (skill.hash !== hash) stale.push(id);
    }
    if (stale.length > 0) {
      this.mini.discardAll(stale);
      for (const id of stale) this.hashes.delete(id);
    }
    const fresh = skills.filter((s) => !this.hashes.has(s.id));
    for (const skill of fresh) this.hashes.set(skill.id, skill.hash);
    stats.updated = stale.length - stats.removed;
    stats.added = fresh.length - stats.updated;
    return { stats, fresh };
  }

  search(query: string, options: SearchOptions = {}): FullTextHit[] {
    // Fuzzy matching walks the whole vocabulary; past FUZZY_MAX_DOCUMENTS it costs more than the
    // typos it forgives (measured: p50 5.5 ms → 1.7 ms at 10,000 skills), so prefix matching alone remains.
    const scaled =
      this.hashes.size > FUZZY_MAX_DOCUMENTS && options.fuzzy === undefined ? { ...options, fuzzy: false } : options;
    return this.mini
      .search(query, scaled)
      .map((r) => ({ id: String(r.id), raw: r.score, queryTerms: r.queryTerms, match: r.match }));
  }

  /** The processed terms of a query, as the index sees them. */
  static queryTerms(query: string): string[] {
    const terms = new Set<string>();
    for (const word of query.split(/[\n\r\p{Z}\p{P}\p{S}]+/u)) {
      const t = word ? processTerm(word) : null;
      if (t) terms.add(t);
    }
    return [...terms];
  }
}

function toDoc(skill: Skill, body: string, bodyChars: number): IndexedDoc {
  return {
    id: skill.id,
    name: searchName(skill),
    description: skill.description,
    tags: skill.tags.join(" "),
    category: skill.category ?? "",
    keywords: skill.keywords.join(" "),
    headings: skill.headings.slice(0, MAX_HEADINGS).join("\n"),
    body: body.slice(0, bodyChars),
  };
}
