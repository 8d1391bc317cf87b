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
