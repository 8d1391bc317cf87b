import { ProtocolError, ProtocolErrorCode, type Resource, ResourceNotFoundError } from "@modelcontextprotocol/server";
import { type SkillReadResult, type SkillSource, SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import { isEnabled } from "../../catalog/filters.ts";
import { errorMessage, SkillHubError } from "../../util/errors.ts";
import { strictFileText } from "../../util/file-text.ts";
import { jsonBytes } from "../../util/json-bytes.ts";
import { shownArg } from "../../util/shown-arg.ts";
import { type AnswerBudget, type AnswerRefusal, type Bound, buildBounded, refusalError } from "../answer-budget.ts";
import type { Hub } from "../hub.ts";
import { paginate } from "../paging.ts";
import { fileDigest } from "./digest.ts";
import {
  claimedFolders,
  invalidate,
  isClaimed,
  type Publication,
  type PublishedFile,
  publication,
  type SkillOutcome,
  skillOutcome,
  skillsAt,
} from "./publication.ts";
import { readSkillFile } from "./skill-files.ts";
import { readNodeFile, readUnpublished } from "./unpublished.ts";
import { uriKey } from "./uris.ts";

/** Entries per skills/list and directory page. */
export const SKILLS_PAGE_SIZE = 100;

/** How long a client may reuse an answer (ms): change notifications tell it sooner. */
export const LIST_TTL_MS = 30_000;

/**
 * The SEP-2640 skills extension over the hub's catalog: the SDK's
 * `SkillsExtension` speaks the wire format (skills/list, skills/get,
 * resources/directory/read, the skill:// resource template, the capability);
 * this source answers from the current snapshot's publication, and reads the files of skills it does
 * not publish as the tools do (unpublished.ts).
 */
export function skillsExtension(hub: Hub, answers?: AnswerBudget): SkillsExtension {
  return new SkillsExtension({
    source: skillSource(hub, answers),
    cacheHint: { ttlMs: LIST_TTL_MS, cacheScope: "private" },
    onWarning: (w) => hub.logger.warn(`skills extension: ${w.path}: ${w.message}`),
  });
}

/** The publication of the current snapshot, with the configured filters applied. */
async function current(hub: Hub): Promise<Publication> {
  await hub.ready;
  // Frozen mode: a skill the lock refuses is not published (the tools refuse it too), nor a file it does not record.
  return publication(hub.catalog, { enabled: (skill) => isEnabled(skill, hub.filter), frozen: hub.frozen });
}

/**
 * The enabled skills `uri` may name (skillsAt), each with what the extension makes of it: only those
 * skills' files are read and digested (a first read on a large hub costs one skill, not all of them).
 * Of skills sharing a root, the one the publication gives it: the first published, else the first.
 */
async function* skillsOf(hub: Hub, uri: string) {
  await hub.ready;
  const byRoot = new Map<string, { at: ReturnType<typeof skillsAt>[number]; outcome: SkillOutcome }[]>();
  for (const at of skillsAt(hub.catalog, uri)) {
    if (!isEnabled(at.skill, hub.filter)) continue;
    const outcome = await skillOutcome(hub.catalog, at.skill, at.shadowed, hub.frozen);
    byRoot.set(at.root, [...(byRoot.get(at.root) ?? []), { at, outcome }]);
  }
  for (const sharing of byRoot.values()) {
    const chosen = sharing.find(({ outcome }) => !("reason" in outcome)) ?? sharing[0];
    if (chosen) yield { ...chosen.at, outcome: chosen.outcome };
  }
}

/** `answers`: where the HTTP transport counts what a read sends (create-server.ts); none over stdio. */
export function skillSource(hub: Hub, answers?: AnswerBudget): SkillSource {
  return guarded(hub, {
    async list({ cursor }) {
      const pub = await current(hub);
      const page = paginate(pub.skills, cursor, SKILLS_PAGE_SIZE, (s) => s.entry.uri);
      return { skills: page.items.map((s) => s.entry), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
    async get(uri) {
      for await (const at of skillsOf(hub, uri)) {
        const entry = "reason" in at.outcome ? undefined : at.outcome.published.entry;
        if (entry && uriKey(entry.uri) === at.key) return entry;
      }
      return undefined;
    },
    async read(uri, ctx) {
      const request = ctx.http?.req;
      // Security: counted until the response carrying it ends, so reads at once (a batch, clients reading
      // slowly) cannot hold the server's memory without bound. The file's size on disk, which its answer is
      // never smaller than, counts before it is read: a read that cannot fit is refused before its bytes are
      // read and its answer built, not after.
      const built = await buildBounded(answers, request, (bound) => readFile(hub, uri, bound));
      if ("refused" in built) throw readRefused(hub, uri, built.refused);
      const refused = answers?.take(request, jsonBytes(built.value));
      if (refused) throw readRefused(hub, uri, refused);
      return built.value;
    },
    async readDirectory(uri, { cursor }) {
      for await (const at of skillsOf(hub, uri)) {
        const children = "reason" in at.outcome ? undefined : at.outcome.dirs.get(at.key);
        if (!children) continue;
        const page = paginate(children, cursor, SKILLS_PAGE_SIZE, (r: Resource) => r.uri);
        return { resources: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
      }
      return undefined;
    },
    async listResources() {
      return (await current(hub)).skills.map(({ entry }) => ({
        uri: entry.uri,
        name: entry.frontmatter.name,
        description: entry.frontmatter.description,
        mimeType: "text/markdown",
      }));
    },
  });
}

/** Why the answer to a read of `uri` was not sent, for its client. */
function readRefused(hub: Hub, uri: string, refused: AnswerRefusal): ProtocolError {
  return refusalError(
    shownArg(uri),
    refused,
    hub.tools().some((t) => t.name === "read_skill_file"),
  );
}

/**
 * The content of the skill file at `uri`: a published skill's as published, another served skill's as the
 * tools read it, a tree node's own file; not found otherwise. `bound` is told the file's size on disk
 * before it is read (its answer is never smaller: text as it is, or base64), and may throw to stop the read.
 */
async function readFile(hub: Hub, uri: string, bound: Bound): Promise<SkillReadResult> {
  for await (const at of skillsOf(hub, uri)) {
    if ("reason" in at.outcome) {
      // A folder whose URIs a shadowed skill holds is not this skill's to serve by URI (claimedFolders).
      if (isClaimed(claimedFolders(hub.catalog, at.skill, at.shadowed), at.path)) continue;
      const unpublished = readUnpublished(hub, at.skill, at.path, uri, bound);
      if (unpublished) return contents(unpublished.bytes, unpublished.mimeType);
      continue;
    }
    const file = at.outcome.files.get(at.key);
    if (file) {
      bound(file.size);
      return readPublished(hub, uri, file);
    }
    if (at.outcome.dirs.has(at.key))
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `${uri} is a directory; list it with resources/directory/read.`,
      );
  }
  const node = readNodeFile(hub, uri, bound);
  if (node) return contents(node.bytes, node.mimeType);
  throw new ResourceNotFoundError(
    uri,
    `No file of a served skill is at ${shownArg(uri)}. A skill's files are listed with their URIs by skills/get on its SKILL.md, resources/directory/read on its folder${hub.tools().some((t) => t.name === "load_skill") ? " and load_skill" : ""}.`,
  );
}

/**
 * A published file's bytes, checked against the digest it was published with. A file changed since
 * drops this snapshot's publication and rescans, so the next skills/get (and the tools) see the new
 * content with its new digest together.
 */
function readPublished(hub: Hub, uri: string, file: PublishedFile): SkillReadResult {
  let bytes: Uint8Array;
  try {
    bytes = readSkillFile(file.dir, file.path);
  } catch (error) {
    if (!(error instanceof SkillHubError) || error.code !== "FILE_NOT_FOUND")
      throw new ProtocolError(ProtocolErrorCode.InternalError, `${uri} could not be read: ${errorMessage(error)}`);
    // Removed since it was listed: as for a changed file, the next listing is the disk's.
    invalidate(hub.catalog);
    void hub.refresher.rescan("a skill file was removed");
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `${uri} was removed from the server since it was listed; call skills/get for the skill's current files.`,
    );
  }
  if (bytes.byteLength !== file.size || fileDigest(bytes) !== file.digest) {
    invalidate(hub.catalog);
    void hub.refresher.rescan("a skill file changed");
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `${uri} changed since it was listed; call skills/get for its current digest, then read it again.`,
    );
  }
  return contents(bytes, file.mimeType);
}

/**
 * Every method of `source` taking its turn of the event loop (Hub.takeTurn: a batch of 100 skills/list or
 * resources/read cannot hold other clients meanwhile), with its unexpected failures (a bug, a file-system
 * error no check foresaw) answered as an internal error with no server path in it, and logged in full on
 * stderr: the client's error text is all a model would see.
 */
function guarded(hub: Hub, source: SkillSource): SkillSource {
  const wrap =
    <A extends unknown[], R>(name: string, method: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await hub.takeTurn();
      try {
        return await method(...args);
      } catch (error) {
        if (error instanceof ProtocolError) throw error;
        hub.logger.error(`skills extension: ${name} failed: ${errorMessage(error)}`);
        throw new ProtocolError(ProtocolErrorCode.InternalError, `${name} failed on the server; its log says why.`);
      }
    };
  return Object.fromEntries(
    Object.entries(source).map(([name, method]) => [
      name,
      wrap(name, method as (...args: unknown[]) => Promise<unknown>),
    ]),
  ) as unknown as SkillSource;
}

/** Text when the bytes are UTF-8 (served as `text`), else bytes (served as a base64 `blob`). */
function contents(bytes: Uint8Array, mimeType: string): SkillReadResult {
  try {
    return { text: strictFileText.decode(bytes), mimeType };
  } catch {
    return { bytes, mimeType };
  }
}
