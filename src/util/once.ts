/**
 * `build()`'s value, built on the first call and kept. For zod schemas that are not needed before
 * the server answers `initialize`: zod builds a schema slowly (tens of microseconds an object, before
 * the JIT warms up), and schemas built at import time delayed every start.
 */
export function once<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => {
    built ??= build();
    return built;
  };
}

/**
 * `build(key)`'s value, built on the first call for `key` and kept while `key` lives (a WeakMap holds it):
 * for what is worked out once from an object asked about again and again.
 */
export function oncePer<K extends object, T>(build: (key: K) => T): (key: K) => T {
  const built = new WeakMap<K, T>();
  return (key) => {
    if (built.has(key)) return built.get(key) as T;
    const value = build(key);
    built.set(key, value);
    return value;
  };
}
