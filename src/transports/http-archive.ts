import { closeSync, readSync } from "node:fs";
import type { Hub } from "../server/hub.ts";
import type { ToolContext } from "../tools/definition.ts";
import { openServedFile } from "../tools/support/served-file.ts";
import {
  ARCHIVE_MAX_BYTES,
  type ArchiveContents,
  type ArchiveFile,
  archiveContents,
  archiveName,
} from "../tools/support/skill-archive.ts";
import { lookupSkill } from "../tools/support/skill-lookup.ts";
import { NO_LOADS } from "../usage/session-usage.ts";
import { CHUNK, readOpened } from "../util/confined-read.ts";
import { TAR_END, tarFolder, tarHeader, tarPadding } from "../util/tar.ts";
import type { ArchiveLinks } from "./archive-links.ts";
import { PeerPlaces, type Place } from "./peer-places.ts";
import { onStreamEnd, READER_IDLE_MS, type ReaderLimit } from "./stream-end.ts";

/**
 * Downloads sent at once: 4 in all, 2 per client address. Security: a link is a capability without the
 * token, and each download holds a file open and a compressor (archive streams: at most CHUNK bytes read
 * ahead, and the compressor's own buffers); a count bounds what holders of links, or one machine, can
 * make the server hold. A model downloads one skill at a time.
 */
export const MAX_ARCHIVE_STREAMS = 4;
export const MAX_ARCHIVE_STREAMS_PER_PEER = 2;

/** The places downloads hold while they are sent. */
export function archiveStreams(): PeerPlaces {
  return new PeerPlaces(MAX_ARCHIVE_STREAMS, MAX_ARCHIVE_STREAMS_PER_PEER);
}

/** A plain-text answer: what curl, a shell or a person reads when a download is refused. */
function refusal(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(`${message}\n`, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...headers },
  });
}

/** What serveArchive needs besides the request. */
export interface ArchiveServing {
  hub: Hub;
  links: ArchiveLinks;
  /** Downloads being sent (archiveStreams). */
  streams: PeerPlaces;
  /** The client's address ("" when unknown). */
  peer: string;
  /** Lifts the socket's silence limit for a download being sent; returns what puts it back (RequestHooks). */
  longLived?: () => () => void;
  /** The clock of the link's times, and of the client's reading rate (stream-end.ts). Default Date.now. */
  now?: () => number;
  /**
   * How long a download waits for its client to take more, and the timer that counts it. Default
   * READER_IDLE_MS, setTimeout. Security: a client that stops reading, or reads too slowly (stream-end.ts's
   * READER_MIN_BYTES_PER_SECOND), would otherwise hold one of the MAX_ARCHIVE_STREAMS places, its file and
   * its compressor for as long as its connection stays open.
   */
  idle?: Partial<Pick<ReaderLimit, "ms" | "timer">>;
}

/**
 * GET /archive/…: one skill's served files as a gzipped tar, for the link a remote agent's answer gave
 * (archive-links.ts). No bearer token: the link is the capability. The files are those the link's version
 * names, read in chunks of CHUNK bytes as the client takes the archive, each checked against its digest
 * when it has been sent: one that changed ends the download with an error, which makes curl and tar fail
 * (the command moves nothing into place then). A client that goes away, takes nothing for
 * READER_IDLE_MS, or reads too slowly (stream-end.ts), stops the reading and the compressing.
 */
export async function serveArchive(request: Request, path: string, serving: ArchiveServing): Promise<Response> {
  const { hub, links, streams, now = Date.now, idle } = serving;
  if (request.method !== "GET")
    return refusal(405, `Method not allowed: ${request.method}. Download a skill's archive with GET.`, {
      Allow: "GET",
    });
  const link = links.check(path);
  if (!link.ok) return refusal(link.status, link.message);
  // Security: taken before anything is awaited (peer-places.ts), held until the archive is sent or dropped.
  const place = streams.take(serving.peer);
  if (place === "peer-full")
    return refusal(
      429,
      `Too Many Requests: this address is downloading ${streams.maxPerPeer} skills at once, the most one address may. Retry when one has finished.`,
      { "Retry-After": "5" },
    );
  if (place === "full")
    return refusal(
      503,
      `Service Unavailable: the server is sending ${streams.max} downloads, the most it sends at once. Retry shortly.`,
      { "Retry-After": "5" },
    );
  let answer: Response | undefined;
  try {
    answer = await archiveResponse(request, link, { hub, place, now, idle, longLived: serving.longLived });
    return answer;
  } finally {
    // A refusal holds no place: the archive's stream gives its place back when it ends.
    if (answer?.status !== 200) place.release();
  }
}

async function archiveResponse(
  request: Request,
  link: { id: string; version: string },
  {
    hub,
    place,
    now,
    idle = {},
    longLived,
  }: Pick<ArchiveServing, "hub" | "idle" | "longLived"> & { place: Place; now: () => number },
): Promise<Response> {
  const ask = "Ask the server again for the skill: its answer gives a new link.";
  const found = await lookupSkill(link.id, hub);
  if (found.error) return refusal(404, `Not found: this server no longer serves that skill. ${ask}`);
  const skill = found.skill;
  const ctx: Pick<ToolContext, "deps" | "session"> = {
    deps: hub,
    session: {
      clientName: () => undefined,
      remote: true,
      usage: NO_LOADS,
      client: "archive link",
      address: place.peer,
    },
  };
  const contents = archiveContents(skill, ctx);
  if (!contents.ok)
    return refusal(contents.tooLarge ? 413 : 404, `Cannot download: ${contents.reason.replace(/\.$/, "")}.`);
  if (contents.version !== link.version)
    return refusal(404, `Not found: skill '${skill.name}' has changed since this link was made. ${ask}`);
  const tar = tarStream(contents, now() / 1000, request.signal, hub.frozen !== undefined, (file) =>
    hub.logger.warn(`http: the archive of ${skill.name} stopped: ${file.path} changed while it was sent`),
  );
  const gzip = tar.pipeThrough(new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>);
  const stopped = (why: string) => hub.logger.warn(`http: the archive of ${skill.name} stopped: ${why}`);
  // The socket's own limit would cut a client reading slowly, while it drains megabytes of buffers: the idle
  // limit stands in for it until the download ends.
  const restore = longLived?.();
  const end = () => {
    place.release();
    restore?.();
  };
  return new Response(onStreamEnd(gzip, end, { ms: idle.ms ?? READER_IDLE_MS, stopped, timer: idle.timer, now }), {
    headers: {
      "Content-Type": "application/gzip",
      "Content-Disposition": `attachment; filename="${archiveName(skill, ctx)}.tar.gz"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

/**
 * The folders, then the files, as a tar, read as it is pulled: one file open at a time, CHUNK bytes per
 * pull, each file's digest, size and mode checked against what the link's version names once it has been
 * read (`changed` is told, and the stream fails). Each file has its own modification time; folders have
 * `now` (seconds), as unpacking would give them. Ends, closing the file, when `signal` aborts or the reader
 * cancels. `whole` (frozen: only bytes the lock vouches for may leave): each file is read whole and checked
 * before any of it is sent, at most ARCHIVE_MAX_BYTES held per download.
 */
function tarStream(
  { files, folders }: Pick<Extract<ArchiveContents, { ok: true }>, "files" | "folders">,
  now: number,
  signal: AbortSignal,
  whole: boolean,
  changed: (file: ArchiveFile) => void,
): ReadableStream<Uint8Array> {
  const folderQueue = folders[Symbol.iterator]();
  const queue = files[Symbol.iterator]();
  let open: { file: ArchiveFile; fd: number; read: number; hash: Bun.CryptoHasher } | undefined;
  const close = () => {
    if (open) closeSync(open.fd);
    open = undefined;
  };
  const fail = (file: ArchiveFile, controller: ReadableStreamDefaultController<Uint8Array>) => {
    close();
    changed(file);
    // No reason: Bun writes a failed answer's reason to stderr, a stack trace beside the line `changed` logs.
    controller.error();
  };
  const step = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (signal.aborted) {
      close();
      controller.error(signal.reason);
      return;
    }
    const folder = folderQueue.next();
    if (!folder.done) {
      for (const part of tarFolder(folder.value, now)) controller.enqueue(part);
      return;
    }
    if (!open) {
      const next = queue.next();
      if (next.done) {
        controller.enqueue(TAR_END);
        controller.close();
        return;
      }
      const file = next.value;
      const opened = openServedFile(file.owner, file.path, ARCHIVE_MAX_BYTES);
      const executable = opened.ok && (opened.stat.mode & 0o111) !== 0;
      if (opened.ok) open = { file, fd: opened.fd, read: 0, hash: new Bun.CryptoHasher("sha256") };
      if (!opened.ok || opened.stat.size !== file.size || executable !== file.executable) return fail(file, controller);
      const header = tarHeader({ path: file.path, size: file.size, executable, mtime: opened.stat.mtimeMs / 1000 });
      if (whole) {
        const read = readOpened(opened.fd, opened.stat, opened.real, () => file.path, { maxBytes: file.size });
        close();
        if (!read.ok || read.bytes.length !== file.size || read.sha256 !== file.digest) return fail(file, controller);
        for (const part of [...header, read.bytes, tarPadding(file.size)]) if (part?.length) controller.enqueue(part);
        return;
      }
      for (const part of header) controller.enqueue(part);
      return;
    }
    const { file } = open;
    // One more byte than is left proves a file that grew.
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK, file.size - open.read + 1));
    const n = readSync(open.fd, chunk, 0, chunk.length, open.read);
    open.read += n;
    if (open.read > file.size || (n === 0 && open.read < file.size)) return fail(file, controller);
    if (n > 0) {
      open.hash.update(chunk.subarray(0, n));
      controller.enqueue(chunk.subarray(0, n));
      return;
    }
    // The whole file was sent: it must be the bytes the version names.
    const digest = open.hash.digest("hex");
    close();
    if (digest !== file.digest) return fail(file, controller);
    const padding = tarPadding(file.size);
    if (padding) controller.enqueue(padding);
  };
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      try {
        step(controller);
      } catch (error) {
        close();
        throw error;
      }
    },
    cancel: close,
  });
}
