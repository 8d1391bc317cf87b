import type { CatalogStore } from "../catalog/store.ts";
import type { Skill } from "../skills/skill.ts";
import type { Logger } from "../util/logger.ts";
import type { MemoryRelease } from "../util/release-memory.ts";
import type { VectorIndex, VectorStatus } from "./embeddings/vector-index.ts";
import type { Signal } from "./engine.ts";
import type { SearchMode } from "./modes.ts";

/** How a SearchService is set up (search/create-search.ts; tests inject the rest), and what it reports. */

export interface SearchServiceOptions {
  store: CatalogStore;
  logger: Logger;
  /** Folder for the persisted index; undefined = keep it in memory only. */
  cacheDir?: string;
  /** The source folders, to key the cache file. */
  sourceDirs: () => readonly string[];
  /** Embedding settings that invalidate a persisted index when they change. */
  settings?: string;
  /** fts (default), vector or hybrid (SEARCH_MODE). */
  mode?: SearchMode;
  /** The skills' vectors; undefined with EMBEDDING_PROVIDER=none (vector and hybrid then fall back to full text). */
  vectors?: VectorIndex;
  /** --reindex: ignore any persisted index. */
  reindex?: boolean;
  /** --skip-auto-reindex: use the persisted index as it is, even if the skills changed. */
  skipAutoReindex?: boolean;
  /** Extra ranking signals. Default: the keyword matcher for tree nodes. */
  signals?: readonly Signal[];
  /** Body text of a skill, for indexing. Default: stream its file (confined, in chunks). */
  readBody?: (skill: Skill) => string;
  /** Build a whole index in a worker (build-in-worker.ts) rather than in slices here. Default false. */
  buildInWorker?: boolean;
  /** Skills from which a search during a first build is answered early from the metadata. Default 2,000. */
  earlyFromSkills?: number;
  /** Milliseconds to wait before saving after a change. Default 2,000. */
  saveDelayMs?: number;
  tick?: () => Promise<void>;
  /** Told when a build or load ends; maps the saved index again before each release. */
  memory?: Pick<MemoryRelease, "soon" | "beforeRelease">;
}

export interface IndexStatus {
  documents: number;
  /** How the index was obtained at start-up. */
  origin: "built" | "persisted" | "persisted+updated" | "pending";
  buildMs: number;
  file?: string;
  /** The search mode configured (a search may still fall back to fts). */
  mode: SearchMode;
  /** Embedding progress, when a provider is configured. */
  vectors?: VectorStatus;
}
