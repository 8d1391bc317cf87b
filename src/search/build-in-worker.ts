import type { Skill } from "../skills/skill.ts";
import { errorMessage } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";
import { type Batch, runWorker, workerScript } from "../util/worker-task.ts";
import { FullTextIndex } from "./fulltext.ts";
import { decodeIndexFileAsync, type IndexHeader } from "./index-file.ts";
import { indexHeader, loadIndexFile } from "./persist.ts";

/**
 * A first index build in a worker (index-worker.ts): every body is read and tokenised there, and the
 * worker writes the finished index to the index file, which the server then maps as it maps a saved
 * index at start (persist.ts): the reading's garbage never enters the server's heap, the postings
 * never do either, and no call waits behind a slice of the build. Without a file (or when it cannot
 * be written) the worker sends the saved form's bytes instead, which the server decodes.
 */

/** What index-worker.ts is sent: batches of skills without their verbatim frontmatter (never indexed). */
export type IndexBuildRequest = Batch<Skill> & { header: IndexHeader; file?: string };

/** What it answers: the index file written, or the bytes of its saved form (and why the file was not written). */
export type IndexBuildReply = { written: true } | { bytes: Uint8Array; unwritten?: string };

/** The saved form of an index of `skills`, built in a worker; rejects when the worker cannot do it. */
export function buildIndexInWorker(
  skills: readonly Skill[],
  header: IndexHeader,
  file?: string,
): Promise<IndexBuildReply> {
  return runWorker(
    workerScript("search/index-worker.ts"),
    skills,
    { header, file },
    () => undefined,
    (s) => ({ ...s, frontmatterJson: "{}" }),
  );
}

/**
 * The index of `skills` built in a worker and, when `file` is given, saved there (`saved`: a save is
 * still owed otherwise), with `pause` between the fields it decodes; undefined, after a warning, when
 * the worker could not build it.
 */
export async function indexInWorker(
  skills: readonly Skill[],
  fingerprint: string,
  file: string | undefined,
  logger: Logger,
  pause: () => Promise<void>,
): Promise<{ index: FullTextIndex; saved: boolean } | undefined> {
  try {
    const reply = await buildIndexInWorker(skills, indexHeader(fingerprint), file);
    if ("written" in reply && file) {
      const loaded = await loadIndexFile(file, pause);
      if (!loaded.ok) throw new Error(loaded.reason);
      logger.debug(`search index built in a worker and saved to ${file}`);
      return { index: FullTextIndex.fromParts(loaded.parts), saved: true };
    }
    if (!("bytes" in reply)) throw new Error("the worker wrote no index file");
    if (reply.unwritten) logger.warn(`could not save the search index to ${file}: ${reply.unwritten}`);
    const index = FullTextIndex.fromParts(await decodeIndexFileAsync(reply.bytes, pause));
    logger.debug(`search index built in a worker (${reply.bytes.byteLength} bytes)`);
    return { index, saved: false };
  } catch (error) {
    logger.warn(`building the search index in a worker failed (${errorMessage(error)}); building it here.`);
    return undefined;
  }
}
