import { EmbeddingError } from "./errors.ts";

/** Lists of numbers → Float32Arrays, checking there is one per text and all have the same length. */
export function toVectors(lists: readonly unknown[], expected: number, where: string): Float32Array[] {
  if (lists.length !== expected) {
    throw new EmbeddingError(
      "EMBEDDING_BAD_RESPONSE",
      `${where} returned ${lists.length} vectors for ${expected} texts`,
    );
  }
  const vectors = lists.map((list) => {
    if (!Array.isArray(list) || list.length === 0 || !list.every((n) => typeof n === "number" && Number.isFinite(n))) {
      throw new EmbeddingError("EMBEDDING_BAD_RESPONSE", `${where} returned something that is not a vector of numbers`);
    }
    return Float32Array.from(list as number[]);
  });
  const dims = vectors[0]?.length;
  if (vectors.some((v) => v.length !== dims))
    throw new EmbeddingError("EMBEDDING_BAD_RESPONSE", `${where} returned vectors of different lengths`);
  return vectors;
}

/** The vector scaled to length 1 (a copy), so that cosine similarity is a dot product. A zero vector stays zero. */
export function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const length = Math.sqrt(sum);
  const out = new Float32Array(vector.length);
  if (length === 0) return out;
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] ?? 0) / length;
  return out;
}

/** Dot product; for unit vectors, the cosine similarity (-1..1). */
export function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}
