/**
 * Worker script (util/worker-task.ts, search/build-in-worker.ts): builds the full-text index of the
 * skills it is sent, reading their bodies as the server would (confined, in chunks), and writes its
 * saved form to the index file, or, without one or when that fails, posts the bytes back in one
 * transferred buffer.
 */
import { streamSkillBody } from "../catalog/skill-text.ts";
import type { Skill } from "../skills/skill.ts";
import { errorMessage } from "../util/errors.ts";
import type { WorkerReply } from "../util/worker-task.ts";
import type { IndexBuildReply, IndexBuildRequest } from "./build-in-worker.ts";
import { FullTextIndex } from "./fulltext.ts";
import { encodeIndexFile } from "./index-file.ts";
import { writeIndexFileSync } from "./persist.ts";

declare const self: Worker;

/**
 * Skills indexed between full collections (nothing waits on this thread; see parse-worker.ts), and the
 * most collections a build makes: each costs in proportion to the heap, which grows with the catalog,
 * so larger catalogs collect less often. At 10,000 skills (a first start, the session `make bench`
 * measures): every 250 peaked at 258–260 MB, 100 at 242–248 and 50 at 234–235, the first search
 * waiting 6.0, 6.5 and 8.0 s; at 20,000, every 100 made the build 40 % slower.
 */
const COLLECT_EVERY = 100;
const MAX_COLLECTIONS = 100;

/** The batches received so far; the build starts with the last one. */
const skills: Skill[] = [];

/** The saved form of the index of every skill received (the index itself is garbage once it returns). */
function build(header: IndexBuildRequest["header"]): Uint8Array[] {
  const index = FullTextIndex.empty();
  const every = Math.max(COLLECT_EVERY, Math.ceil(skills.length / MAX_COLLECTIONS));
  // A growing prefix: each sync indexes only the skills it has not seen.
  for (let from = 0; from < skills.length; from += every) {
    index.sync(skills.slice(0, from + every), (skill, sink) => streamSkillBody(skill, sink));
    Bun.gc(true);
  }
  skills.length = 0;
  return encodeIndexFile(header, index.snapshot());
}

self.onmessage = (event: MessageEvent<IndexBuildRequest>) => {
  const { batch, last, header, file } = event.data;
  for (const skill of batch) skills.push(skill);
  if (!last) return;
  try {
    const pieces = build(header);
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
