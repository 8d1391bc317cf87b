import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeAtomicSync } from "../../util/atomic-write.ts";
import { errnoCode, errorMessage } from "../../util/errors.ts";

/**
 * The vector cache file: "SKHV", a little-endian u32 header length, a JSON
 * header `{ format, version, identity, dims, keys }`, padding to 4 bytes, then
 * `keys.length × dims` little-endian float32 (every Bun target is little-endian).
 * About 6 KB per skill at 1,536 dimensions, a quarter of the JSON numbers.
 */
const MAGIC = "SKHV";
const FORMAT = "skillhub-vectors";
const VERSION = 1;

interface Header {
  format: typeof FORMAT;
  version: number;
  /** vectorIdentity(): provider and model. */
  identity: string;
  dims: number;
  /** Text keys (content hashes of the embedded text), one per vector, in order. */
  keys: string[];
}

export type CacheLoad =
  | { ok: true; vectors: Map<string, Float32Array>; dims: number }
  | { ok: false; missing: boolean; reason: string };

/** One file per set of skill folders, beside the search index. */
export function vectorCachePath(cacheDir: string, sourceDirs: readonly string[]): string {
  return join(cacheDir, `vectors-${Bun.hash(sourceDirs.join("\u0000")).toString(16)}.bin`);
}

/** Read the cache; a file made with another provider or model is refused (invalidated). */
export function loadVectorCache(path: string, identity: string): CacheLoad {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const missing = errnoCode(error) === "ENOENT";
    return {
      ok: false,
      missing,
      reason: missing ? "no vector cache yet" : `cannot read ${path}: ${errorMessage(error)}`,
    };
  }
  try {
    if (bytes.length < 8 || bytes.toString("latin1", 0, 4) !== MAGIC)
      return bad(`${path} is not a SkillHub vector cache`);
    const headerLength = bytes.readUInt32LE(4);
    const header = JSON.parse(bytes.toString("utf8", 8, 8 + headerLength)) as Partial<Header>;
    if (header.format !== FORMAT || header.version !== VERSION)
      return bad(`the vector cache ${path} has another format version`);
    if (header.identity !== identity) return bad(`the vector cache was made with ${header.identity}, not ${identity}`);
    const dims = Number(header.dims);
    const keys = Array.isArray(header.keys) ? header.keys : [];
    const start = align(8 + headerLength);
    if (!Number.isInteger(dims) || dims <= 0 || bytes.length !== start + keys.length * dims * 4)
      return bad(`the vector cache ${path} is incomplete`);
    // One aligned copy of all the floats; each vector is a view into it.
    const floats = new Float32Array(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + bytes.length));
    const vectors = new Map<string, Float32Array>();
    keys.forEach((key, i) => {
      vectors.set(String(key), floats.subarray(i * dims, (i + 1) * dims));
    });
    return { ok: true, vectors, dims };
  } catch (error) {
    return bad(`the vector cache ${path} is corrupt (${errorMessage(error)})`);
  }
}

/** Write atomically (temporary file, then rename): a reader never sees half a file. */
export function saveVectorCache(
  path: string,
  identity: string,
  dims: number,
  vectors: ReadonlyMap<string, Float32Array>,
): void {
  const keys = [...vectors.keys()];
  const header = Buffer.from(
    JSON.stringify({ format: FORMAT, version: VERSION, identity, dims, keys } satisfies Header),
    "utf8",
  );
  const start = align(8 + header.length);
  const out = Buffer.from(new ArrayBuffer(start + keys.length * dims * 4));
  out.write(MAGIC, 0, "latin1");
  out.writeUInt32LE(header.length, 4);
  header.copy(out, 8);
  const floats = new Float32Array(out.buffer, start, keys.length * dims);
  keys.forEach((key, i) => {
    floats.set(vectors.get(key) as Float32Array, i * dims);
  });
  writeAtomicSync(path, [out]);
}

function align(n: number): number {
  return Math.ceil(n / 4) * 4;
}

function bad(reason: string): CacheLoad {
  return { ok: false, missing: false, reason };
}
