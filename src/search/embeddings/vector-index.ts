import type { Skill } from "../../skills/skill.ts";
import { errorMessage } from "../../util/errors.ts";
import type { Logger } from "../../util/logger.ts";
import { embeddingText, textKey } from "./document-text.ts";
import { EmbeddingError } from "./errors.ts";
import { BACKGROUND_RETRY, QUERY_RETRY } from "./http.ts";
import type { EmbeddingProvider } from "./provider-api.ts";
import { describeEmbedding, vectorIdentity } from "./settings.ts";
import { loadVectorCache, saveVectorCache } from "./vector-cache.ts";
import { dot, normalise } from "./vectors.ts";

export interface VectorIndexOptions {
  provider: EmbeddingProvider;
  logger: Logger;
  /** The vector cache file; undefined = memory only. */
  cacheFile?: () => string | undefined;
  /** Clock in ms. Default Date.now. */
  now?: () => number;
  /** Milliseconds to wait before saving after a change. Default 2,000. */
  saveDelayMs?: number;
  /** After a failed pass, the next search or catalog change tries again once this many ms have passed. Default 60,000. */
  retryAfterFailureMs?: number;
  /** Query vectors remembered (least recently used dropped first). Default 256. */
  queryCacheSize?: number;
}

export interface VectorStatus {
  /** embedding: a pass is running; ready: every skill had a vector at the end of a pass; failed: the last pass failed. */
  state: "idle" | "embedding" | "ready" | "failed";
  /** Skills of the current catalog that have a vector. */
  embedded: number;
  total: number;
  /** Embedding requests sent by this process (skills and queries), retries not counted. */
  requests: number;
  /** How many vectors came from the cache file at start-up. */
  fromCache: number;
  lastError?: string;
}

export interface SimilarHit {
  skill: Skill;
  /** Cosine similarity, -1..1. */
  similarity: number;
}

/**
 * The skills' vectors: loaded from the cache file, completed in the
 * background in batches, kept in step with the catalog by content hash of the
 * embedded text, saved atomically. Never blocks start-up: `unavailable()`
 * says why full text must answer for now.
 */
export class VectorIndex {
  private readonly vectors = new Map<string, Float32Array>();
  private dims?: number;
  /** skill id → the file hash it was computed for and the key of its embedded text. */
  private readonly keys = new Map<string, { hash: string; key: string; text: string }>();
  private readonly queries = new Map<string, Float32Array>();
  private readonly abort = new AbortController();
  private loaded = false;
  private everReady = false;
  private latest?: readonly Skill[];
  private lastSkills: readonly Skill[] = [];
  /** The skills the running pass works on. */
  private current?: readonly Skill[];
  private running?: Promise<void>;
  private failure?: { message: string; at: number };
  private saveTimer?: ReturnType<typeof setTimeout>;
  private dirty = false;
  private state: VectorStatus = { state: "idle", embedded: 0, total: 0, requests: 0, fromCache: 0 };

  constructor(private readonly options: VectorIndexOptions) {}

  get status(): VectorStatus {
    return { ...this.state, lastError: this.failure?.message };
  }

  /** Bring the vectors in line with `skills` in the background. The promise settles when the pass ends; it never rejects. */
  sync(skills: readonly Skill[]): Promise<void> {
    // The same catalog again (start-up asks twice): the running pass covers it.
    if (this.running && skills === this.current && !this.latest) return this.running;
    this.latest = skills;
    this.running ??= this.loop().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Resolves when no pass is running (CLI search and tests wait for it). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Why vector search cannot answer now, or undefined when it can. A failed pass is retried after a pause. */
  unavailable(): string | undefined {
    if (this.everReady) return undefined;
    if (this.failure) {
      this.retryIfDue();
      return `embeddings unavailable: ${this.failure.message}`;
    }
    return `vectors not ready yet (${this.state.embedded} of ${this.state.total} skills embedded)`;
  }

  /** Skills passing `accept`, most similar to the query first. Throws EmbeddingError when the query cannot be embedded. */
  async similar(query: string, skills: readonly Skill[], accept: (skill: Skill) => boolean): Promise<SimilarHit[]> {
    this.retryIfDue();
    const vector = await this.embedQuery(query);
    if (this.dims !== undefined && vector.length !== this.dims) {
      throw new EmbeddingError(
        "EMBEDDING_BAD_RESPONSE",
        `the query vector has ${vector.length} dimensions, the skills' have ${this.dims}; was the model changed?`,
      );
    }
    const hits: SimilarHit[] = [];
    for (const skill of skills) {
      if (!accept(skill)) continue;
      const stored = this.vectors.get(this.keyOf(skill).key);
      if (stored) hits.push({ skill, similarity: dot(vector, stored) });
    }
    return hits.sort((a, b) => b.similarity - a.similarity || a.skill.name.localeCompare(b.skill.name));
  }

  /** Stop background work and save unsaved vectors (shutdown). */
  close(): void {
    this.abort.abort();
    if (this.saveTimer) clearTimeout(this.saveTimer);
    if (this.dirty) this.save();
  }

  private async embedQuery(query: string): Promise<Float32Array> {
    const cached = this.queries.get(query);
    if (cached) {
      // Most recently used last.
      this.queries.delete(query);
      this.queries.set(query, cached);
      return cached;
    }
    this.state.requests++;
    const [vector] = await this.options.provider.embed([query], {
      purpose: "query",
      policy: QUERY_RETRY,
      signal: this.abort.signal,
    });
    const unit = normalise(vector as Float32Array);
    this.queries.set(query, unit);
    const max = this.options.queryCacheSize ?? 256;
    for (const key of this.queries.keys()) {
      if (this.queries.size <= max) break;
      this.queries.delete(key);
    }
    return unit;
  }

  private async loop(): Promise<void> {
    if (!this.loaded) this.load();
    while (this.latest && !this.abort.signal.aborted) {
      const skills = this.latest;
      this.latest = undefined;
      await this.pass(skills);
    }
  }

  private async pass(skills: readonly Skill[]): Promise<void> {
    this.lastSkills = skills;
    this.current = skills;
    const live = new Set<string>();
    const missing = new Map<string, string>();
    for (const skill of skills) {
      const { key, text } = this.keyOf(skill);
      live.add(key);
      if (!this.vectors.has(key)) missing.set(key, text);
    }
    for (const key of [...this.vectors.keys()]) {
      if (live.has(key)) continue;
      this.vectors.delete(key);
      this.dirty = true;
    }
    const ids = new Set(skills.map((s) => s.id));
    for (const id of [...this.keys.keys()]) if (!ids.has(id)) this.keys.delete(id);
    this.count(skills);
    const todo = [...missing];
    if (todo.length > 0) this.state.state = "embedding";
    const batch = this.options.provider.settings.batchSize;
    try {
      for (let i = 0; i < todo.length; i += batch) {
        const slice = todo.slice(i, i + batch);
        this.state.requests++;
        const vectors = await this.options.provider.embed(
          slice.map(([, text]) => text),
          { purpose: "document", policy: BACKGROUND_RETRY, signal: this.abort.signal },
        );
        if (this.abort.signal.aborted) return;
        this.store(slice, vectors);
        this.count(skills);
      }
      this.failure = undefined;
      this.everReady = true;
      this.state.state = "ready";
      if (todo.length > 0)
        this.options.logger.info(
          `embeddings: ${todo.length} skills embedded (${describeEmbedding(this.options.provider.settings)}); vector search is ready.`,
        );
    } catch (error) {
      if (this.abort.signal.aborted) return;
      this.failure = { message: errorMessage(error), at: this.now() };
      this.state.state = "failed";
      const retry = Math.round((this.options.retryAfterFailureMs ?? 60_000) / 1000);
      this.options.logger.warn(
        `embeddings: ${this.failure.message}; search_skills answers with full text (a retry follows in ${retry} s or on the next change).`,
      );
    } finally {
      if (this.dirty) this.scheduleSave();
    }
  }

  private store(slice: readonly [string, string][], vectors: readonly Float32Array[]): void {
    const dims = vectors[0]?.length;
    if (dims !== undefined && this.dims !== undefined && dims !== this.dims) {
      // The server now serves vectors of another size (its model changed): the old ones are useless.
      this.options.logger.warn(
        `embeddings: vectors now have ${dims} dimensions instead of ${this.dims}; embedding every skill again.`,
      );
      this.vectors.clear();
      this.queries.clear();
      this.latest ??= this.lastSkills;
    }
    this.dims = dims ?? this.dims;
    slice.forEach(([key], i) => {
      this.vectors.set(key, normalise(vectors[i] as Float32Array));
    });
    this.dirty = true;
  }

  private count(skills: readonly Skill[]): void {
    this.state.total = skills.length;
    this.state.embedded = skills.filter((s) => this.vectors.has(this.keyOf(s).key)).length;
  }

  private keyOf(skill: Skill): { key: string; text: string } {
    const known = this.keys.get(skill.id);
    if (known && known.hash === skill.hash) return known;
    const text = embeddingText(skill);
    const entry = { hash: skill.hash, key: textKey(text), text };
    this.keys.set(skill.id, entry);
    return entry;
  }

  private retryIfDue(): void {
    if (!this.failure || this.running) return;
    if (this.now() - this.failure.at < (this.options.retryAfterFailureMs ?? 60_000)) return;
    void this.sync(this.lastSkills);
  }

  private load(): void {
    this.loaded = true;
    this.options.logger.info(
      `embeddings: ${describeEmbedding(this.options.provider.settings)}; skill names, descriptions, tags, categories and search queries are sent there.`,
    );
    const file = this.options.cacheFile?.();
    if (!file) return;
    const loaded = loadVectorCache(file, vectorIdentity(this.options.provider.settings));
    if (!loaded.ok) {
      if (!loaded.missing) this.options.logger.warn(`embeddings: ${loaded.reason}; embedding every skill again.`);
      return;
    }
    for (const [key, vector] of loaded.vectors) this.vectors.set(key, vector);
    this.dims = loaded.dims;
    this.state.fromCache = loaded.vectors.size;
    this.options.logger.debug(`embeddings: ${loaded.vectors.size} vectors loaded from ${file}`);
  }

  private scheduleSave(): void {
    if (!this.options.cacheFile?.()) return;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => this.save(), this.options.saveDelayMs ?? 2000);
    (this.saveTimer as { unref?: () => void }).unref?.();
  }

  private save(): void {
    const file = this.options.cacheFile?.();
    if (!file || this.dims === undefined) return;
    try {
      saveVectorCache(file, vectorIdentity(this.options.provider.settings), this.dims, this.vectors);
      this.dirty = false;
    } catch (error) {
      this.options.logger.warn(`embeddings: could not save the vector cache to ${file}: ${errorMessage(error)}`);
    }
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
