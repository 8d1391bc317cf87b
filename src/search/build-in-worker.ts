import type { Skill } from "../skills/skill.ts";
import { runWorker, workerScript } from "../util/worker-task.ts";
import type { IndexHeader } from "./index-file.ts";

/**
 * A first index build in a worker (index-worker.ts): every body is read and tokenised there, and the
 * server gets the finished index as the bytes of its saved form (index-file.ts), which it decodes as
 * it would load them from disk and writes as they are. The reading's garbage never enters the
 * server's heap, and no call waits behind a slice of the build.
 */

/** What index-worker.ts is sent: the skills without their verbatim frontmatter (never indexed). */
export interface IndexBuildRequest {
  skills: Skill[];
  header: IndexHeader;
}

/** The saved form of an index of `skills`, built in a worker; rejects when the worker cannot do it. */
export function buildIndexInWorker(skills: readonly Skill[], header: IndexHeader): Promise<Uint8Array> {
  const request: IndexBuildRequest = { skills: skills.map((s) => ({ ...s, frontmatter: {} })), header };
  return runWorker<never, Uint8Array>(workerScript("search/index-worker.ts"), request, () => undefined);
}
