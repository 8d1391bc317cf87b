/**
 * Worker script (util/worker-task.ts, search/build-in-worker.ts): builds the full-text index of the
 * skills it is sent, reading their bodies as the server would (confined, in chunks), and writes its
 * saved form to the index file, or, without one or when that fails, posts the bytes back in one
 * transferred buffer.
 */
import { edenGC } from "bun:jsc";
import { streamSkillBody } from "../catalog/skill-text.ts";
import { errorMessage } from "../util/errors.ts";
import { lowerThreadPriority } from "../util/thread-priority.ts";
import type { WorkerReply } from "../util/worker-task.ts";
import type { IndexBuildReply, IndexBuildRequest } from "./build-in-worker.ts";
import { FullTextIndex } from "./fulltext.ts";
import { encodeIndexFile } from "./index-file.ts";
import { writeIndexFileSync } from "./persist.ts";
import { forgetProcessedTerms } from "./text.ts";

declare const self: Worker;
lowerThreadPriority();

/**
 * Skills indexed between two collections of the young generation (about 1.5 ms each here), and between
 * two full ones (10-13 ms), which also empty the term memo. Reading and tokenising a body leaves about
 * 170 KB of garbage; JavaScriptCore lets it pile up between collections and its allocator keeps the
 * pages, so the interval sets the build's peak. At 10,000 skills, `make bench`'s session (a first
 * start's build, peak RSS of the process, 2-3 runs each): a full collection every 100 skills (before)
 * 244-245 MB, the build 6.0-6.3 s; young every 25 and full every 500, 214-216 MB, 4.6-4.8 s; 20 and
 * 300, 207-209 MB, 4.9-5.0 s; 10 and 200, 201-207 MB, 5.2-5.3 s; 5 and 200, 199-210 MB, 5.9-6.0 s.
 */
const EDEN_EVERY = 10;
const FULL_EVERY = 200;

/** The index of the batches received so far, and how many skills it holds. */
const index = FullTextIndex.empty();
let added = 0;

/** After each skill: the term memo goes with each full collection (it holds up to 200,000 words). */
const collect = () => {
  if (++added % FULL_EVERY === 0) {
    forgetProcessedTerms();
    Bun.gc(true);
  } else if (added % EDEN_EVERY === 0) edenGC();
};

self.onmessage = (event: MessageEvent<IndexBuildRequest>) => {
  const { batch, last, header, file } = event.data;
  try {
    // Each batch is indexed as it comes, and the worker keeps no copy of the catalog.
    index.addNew(batch, (skill, sink) => streamSkillBody(skill, sink), collect);
    if (!last) return;
    forgetProcessedTerms();
    const pieces = encodeIndexFile(header, index.snapshot());
    let unwritten: string | undefined;
    if (file)
      try {
        writeIndexFileSync(file, pieces);
        pieces.length = 0;
        // The server maps the file next: the build's memory goes back first, not after this thread ends.
        Bun.gc(true);
        Bun.shrink();
        const done: WorkerReply<never, IndexBuildReply> = { done: { written: true } };
        setTimeout(() => self.postMessage(done), 0);
        return;
      } catch (error) {
        unwritten = errorMessage(error);
      }
    const bytes = new Uint8Array(pieces.reduce((n, p) => n + p.byteLength, 0));
    let at = 0;
    for (const piece of pieces) {
      bytes.set(piece, at);
      at += piece.byteLength;
    }
    const done: WorkerReply<never, IndexBuildReply> = { done: { bytes, unwritten } };
    self.postMessage(done, [bytes.buffer]);
  } catch (error) {
    const failed: WorkerReply<never, IndexBuildReply> = { error: errorMessage(error) };
    self.postMessage(failed);
  }
};
