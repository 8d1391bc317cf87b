import type { Skill } from "../skills/skill.ts";
import { errorMessage } from "../util/errors.ts";
import type { SearchMode } from "./embeddings/settings.ts";
import type { SimilarHit } from "./embeddings/vector-index.ts";
import { cutCandidates, type RankedHit, type RankOptions } from "./engine.ts";
import { FullTextIndex } from "./fulltext.ts";
import { RRF_DEPTH, reciprocalRankFusion } from "./fusion.ts";
import { normaliseQuery } from "./text.ts";

export type { SearchMode } from "./embeddings/settings.ts";

/** What answered a search, and why full text did when another mode was asked for. */
export interface SearchOutcome {
  hits: RankedHit[];
  /** The path that produced `hits`. */
  mode: SearchMode;
  /** Set when `mode` is fts although vector or hybrid was configured. */
  fallbackReason?: string;
  /** Set when the search index was still being built: what the hits cover (SearchService.query). */
  partial?: string;
}

/** The vector side as the modes see it (VectorIndex). */
export interface VectorSource {
  unavailable(): string | undefined;
  similar(query: string, skills: readonly Skill[], accept: (skill: Skill) => boolean): Promise<SimilarHit[]>;
}

export interface ModeInput {
  mode: SearchMode;
  query: string;
  options: RankOptions;
  /** The skills vector search considers (the catalog's served skills). */
  skills: readonly Skill[];
  /** Full-text hits, best first, before search_skills' cut; the first `depth` exact (default: what the cut reads). */
  fullText: (depth?: number) => RankedHit[];
  /** Undefined with EMBEDDING_PROVIDER=none. */
  vectors?: VectorSource;
}

/**
 * search_skills' search paths: fts; vector (query embedding and cosine
 * similarity, full text on any failure); hybrid (reciprocal rank fusion of
 * both lists, full text on any failure). The candidate and threshold rules
 * apply to whichever list answers.
 */
export async function searchByMode(input: ModeInput): Promise<SearchOutcome> {
  const { options } = input;
  const fullText = (fallbackReason?: string): SearchOutcome => ({
    hits: cutCandidates(input.fullText(), options),
    mode: "fts",
    ...(fallbackReason ? { fallbackReason } : {}),
  });
  if (input.mode === "fts") return fullText();
  if (!input.vectors) return fullText("no embedding provider is configured (EMBEDDING_PROVIDER=none)");
  const notReady = input.vectors.unavailable();
  if (notReady) return fullText(notReady);
  const asked = normaliseQuery(input.query);
  let similar: SimilarHit[];
  try {
    similar = await input.vectors.similar(asked, input.skills, options.accept ?? (() => true));
  } catch (error) {
    return fullText(`query embedding failed: ${errorMessage(error)}`);
  }
  const terms = FullTextIndex.queryTerms(asked);
  // Cosine similarity as the score: 0..1 once negatives (unrelated) are floored.
  const vectorHits = similar.map((h) => ({
    skill: h.skill,
    score: Math.max(0, Math.min(1, h.similarity)),
    terms,
    similarity: h.similarity,
  }));
  if (input.mode === "vector") return { hits: cutCandidates(vectorHits, options), mode: "vector" };
  return {
    hits: cutCandidates(reciprocalRankFusion([input.fullText(RRF_DEPTH), vectorHits]), options),
    mode: "hybrid",
  };
}
