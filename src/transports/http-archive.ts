import type { Hub } from "../server/hub.ts";
import type { ToolContext } from "../tools/definition.ts";
import { archiveContents, archiveName, readArchiveFile } from "../tools/support/skill-archive.ts";
import { lookupSkill } from "../tools/support/skill-lookup.ts";
import { sha256Hex } from "../util/sha256.ts";
import { TAR_END, tarEntry } from "../util/tar.ts";
import type { ArchiveLinks } from "./archive-links.ts";

/** A plain-text answer: what curl, a shell or a person reads when a download is refused. */
function refusal(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(`${message}\n`, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...headers },
  });
}

/**
 * GET /archive/…: one skill's served files as a gzipped tar, for the link a remote agent's answer gave
 * (archive-links.ts). No bearer token: the link is the capability. The files are those the link's version
 * names, read one at a time as the archive is sent (memory holds one file, at most 16 MiB); one that
 * changes while it is sent ends the download with an error, so tar never unpacks a mix of two versions.
 */
export async function serveArchive(
  request: Request,
  path: string,
  hub: Hub,
  links: ArchiveLinks,
  now: () => number = Date.now,
): Promise<Response> {
  if (request.method !== "GET")
    return refusal(405, `Method not allowed: ${request.method}. Download a skill's archive with GET.`, {
      Allow: "GET",
    });
  const link = links.check(path);
  if (!link.ok) return refusal(link.status, link.message);
  const ask = "Ask the server again for the skill: its answer gives a new link.";
  const found = await lookupSkill(link.id, hub);
  if (found.error) return refusal(404, `Not found: this server no longer serves that skill. ${ask}`);
  const skill = found.skill;
  const ctx: Pick<ToolContext, "deps" | "session"> = {
    deps: hub,
    session: { clientName: () => undefined, remote: true },
  };
  const contents = archiveContents(skill, ctx);
  if (!contents.ok) return refusal(contents.tooLarge ? 413 : 404, `Cannot download: ${contents.reason}.`);
  if (contents.version !== link.version)
    return refusal(404, `Not found: skill '${skill.name}' has changed since this link was made. ${ask}`);
  const mtime = Math.floor(now() / 1000);
  const files = contents.files[Symbol.iterator]();
  const tar = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = files.next();
      if (next.done) {
        controller.enqueue(TAR_END);
        controller.close();
        return;
      }
      const file = next.value;
      const read = readArchiveFile(file, ctx);
      if (!read.ok || read.executable !== file.executable || sha256Hex(read.bytes) !== file.digest) {
        hub.logger.warn(`http: the archive of ${skill.name} stopped: ${file.path} changed while it was sent`);
        controller.error(new Error(`${file.path} changed`));
        return;
      }
      for (const part of tarEntry({ path: file.path, bytes: read.bytes, executable: file.executable, mtime }))
        controller.enqueue(part);
    },
  });
  return new Response(
    tar.pipeThrough(new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>),
    {
      headers: {
        "Content-Type": "application/gzip",
        "Content-Disposition": `attachment; filename="${archiveName(skill)}.tar.gz"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    },
  );
}
