import MiniSearch, { type Options, type SearchOptions } from "minisearch";
import type { Skill } from "../skills/skill.ts";
import { BodyPostings, type EncodedBodyPostings } from "./body-postings.ts";
import { decodeIndex, type EncodedIndex, encodeIndex } from "./index-codec.ts";
import { processTerm } from "./text.ts";

/** What is persisted: the index and the content hash of every skill in it. */
export interface PersistedData {
  index: EncodedIndex;
  hashes: Record<string, string>;
  /** Body postings (typed arrays, base64). */
  body: EncodedBodyPostings;
  /** Heading postings (same store as bodies). */
  headings: EncodedBodyPostings;
}

/** Bump when fields, boosts or term processing change: persisted indexes of another version are rebuilt. */
export const INDEX_SCHEMA_VERSION = 8;

/**
 * Body characters indexed per skill, the same at every catalog size (issue 16: a share that shrank
 * with the catalog cost R@3 0.956 → 0.835 at 11,000 skills). Measured on bench/eval at 1,018
 * skills (R@3 / MRR): 3,000 → 0.956 / 0.889; 10,000 → 0.945 / 0.865; whole bodies → 0.912 / 0.801
 * (long bodies match every query word). The postings live in typed arrays (body-postings.ts).
 */
export const BODY_CHARS = 3000;
/**
 * Bytes of a SKILL.md read for indexing: frontmatter plus BODY_CHARS (UTF-8 up to 4 bytes a
 * character), never a whole large file. Each read becomes a string twice its size; 64 KiB reads
 * made over a gigabyte of garbage per build at 10,000 skills.
 */
export const INDEX_READ_BYTES = 16 * 1024;
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

/**
 * MiniSearch indexes the short metadata fields; bodies and headings, most of the postings, go to
 * typed-array stores (body-postings.ts). Measured at 10,000 skills (live heap): MiniSearch over
 * every metadata field +86 MB, without headings +40 MB; the body store +14 MB.
 */
const POSTING_FIELDS = ["body", "headings"] as const;
const FIELDS = (Object.keys(BOOSTS) as (keyof Omit<IndexedDoc, "id">)[]).filter(
  (f) => !(POSTING_FIELDS as readonly string[]).includes(f),
);
const { body: BODY_BOOST, headings: HEADINGS_BOOST, ...META_BOOSTS } = BOOSTS;

export const SEARCH_OPTIONS: SearchOptions = {
  boost: META_BOOSTS,
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
    private readonly body: BodyPostings,
    private readonly headings: BodyPostings,
    private readonly bodyChars = BODY_CHARS,
  ) {}

  /** An empty index. `tuning` overrides search options and body length (bench/tune.ts). */
  static empty(tuning: { search?: SearchOptions; bodyChars?: number } = {}): FullTextIndex {
    const options = tuning.search ? { ...OPTIONS, searchOptions: { ...SEARCH_OPTIONS, ...tuning.search } } : OPTIONS;
    return new FullTextIndex(
      new MiniSearch(options),
      new Map(),
      new BodyPostings(),
      new BodyPostings(),
      tuning.bodyChars,
    );
  }

  /** Restore a persisted index (see index-codec.ts), yielding between batches. */
  static async fromJSON(
    json: PersistedData,
    tick: () => Promise<void> = () => new Promise((r) => setTimeout(r, 0)),
  ): Promise<FullTextIndex> {
    const mini = await decodeIndex<IndexedDoc>(json.index, OPTIONS, tick);
    return new FullTextIndex(
      mini,
      new Map(Object.entries(json.hashes)),
      BodyPostings.fromJSON(json.body),
      BodyPostings.fromJSON(json.headings),
    );
  }

  toJSON(): PersistedData {
    return {
      index: encodeIndex(this.mini as MiniSearch<unknown>),
      hashes: Object.fromEntries(this.hashes),
      body: this.body.toJSON(),
      headings: this.headings.toJSON(),
    };
  }

  /** Body postings held, for bench/ memory accounting. */
  get bodyPostings(): number {
    return this.body.postings;
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
    for (const skill of fresh) this.add(skill, body(skill));
    this.body.settle();
    this.headings.settle();
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
    for (let i = 0; i < fresh.length; i += batch) {
      for (const skill of fresh.slice(i, i + batch)) this.add(skill, body(skill));
      await tick();
    }
    this.body.settle();
    this.headings.settle();
    return stats;
  }

  private add(skill: Skill, body: string): void {
    this.mini.add(toDoc(skill));
    this.body.add(skill.id, body.length > this.bodyChars ? body.slice(0, this.bodyChars) : body);
    this.headings.add(skill.id, skill.headings.slice(0, MAX_HEADINGS).join("\n"));
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
      for (const id of stale) {
        this.hashes.delete(id);
        this.body.remove(id);
        this.headings.remove(id);
      }
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
    // MiniSearch's score is (sum of field scores) × (query terms matched); the body's BM25+ joins the sum
    // before that factor, so the result equals one MiniSearch index over every field, less body fuzziness.
    const sums = new Map<string, { sum: number; terms: string[] }>();
    for (const r of this.mini.search(query, scaled))
      sums.set(String(r.id), { sum: r.score / (r.queryTerms.length || 1), terms: r.queryTerms });
    const prefix = scaled.prefix ?? SEARCH_OPTIONS.prefix;
    const expand = typeof prefix === "function" ? (t: string) => Boolean(prefix(t, 0, [])) : () => Boolean(prefix);
    const terms = FullTextIndex.queryTerms(query);
    const stored = [
      ...this.body.search(terms, expand, BODY_BOOST),
      ...this.headings.search(terms, expand, HEADINGS_BOOST),
    ];
    for (const [id, match] of stored) {
      const entry = sums.get(id);
      if (!entry) sums.set(id, { sum: match.score, terms: match.terms });
      else {
        entry.sum += match.score;
        for (const t of match.terms) if (!entry.terms.includes(t)) entry.terms.push(t);
      }
    }
    const hits: FullTextHit[] = [];
    for (const [id, { sum, terms }] of sums) hits.push({ id, raw: sum * terms.length, queryTerms: terms });
    return hits.sort((a, b) => b.raw - a.raw);
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

function toDoc(skill: Skill): IndexedDoc {
  return {
    id: skill.id,
    name: skill.kind === "tree-node" ? skill.name.replace(/\/_index$/, "").replace(/_/g, " ") : skill.name,
    description: skill.description,
    tags: skill.tags.join(" "),
    category: skill.category ?? "",
    keywords: skill.keywords.join(" "),
    // Not MiniSearch fields: headings and body are indexed by BodyPostings.
    headings: "",
    body: "",
  };
}
