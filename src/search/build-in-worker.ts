import type { Skill } from "../skills/skill.ts";
import { errorMessage } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";
import { type Batch, runWorker, workerScript } from "../util/worker-task.ts";
import { FullTextIndex } from "./fulltext.ts";
import { decodeIndexFileAsync, type IndexHeader } from "./index-file.ts";
import { indexHeader } from "./persist.ts";

/**
 * A first index build in a worker (index-worker.ts): every body is read and tokenised there, and the
 * server gets the finished index as the bytes of its saved form (index-file.ts), which it decodes as
 * it would load them from disk and writes as they are. The reading's garbage never enters the
 * server's heap, and no call waits behind a slice of the build.
 */

/** What index-worker.ts is sent: batches of skills without their verbatim frontmatter (never indexed). */
export type IndexBuildRequest = Batch<Skill> & { header: IndexHeader };

/** The saved form of an index of `skills`, built in a worker; rejects when the worker cannot do it. */
export function buildIndexInWorker(skills: readonly Skill[], header: IndexHeader): Promise<Uint8Array> {
  const bare = skills.map((s) => ({ ...s, frontmatter: {} }));
  return runWorker(workerScript("search/index-worker.ts"), bare, { header }, () => undefined);
}

/**
 * The index of `skills` built in a worker, decoded here as a saved index is (with `pause` between
 * fields), with the bytes to write; undefined, after a warning, when the worker could not build it.
 */
export async function indexInWorker(
  skills: readonly Skill[],
  fingerprint: string,
  logger: Logger,
  pause: () => Promise<void>,
): Promise<{ index: FullTextIndex; bytes: Uint8Array } | undefined> {
  try {
    const bytes = await buildIndexInWorker(skills, indexHeader(fingerprint));
    const index = FullTextIndex.fromParts(await decodeIndexFileAsync(bytes, pause));
    logger.debug(`search index built in a worker (${bytes.byteLength} bytes)`);
    return { index, bytes };
  } catch (error) {
    logger.warn(`building the search index in a worker failed (${errorMessage(error)}); building it here.`);
    return undefined;
  }
}
