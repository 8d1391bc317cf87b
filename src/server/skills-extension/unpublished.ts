import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { SKILL_LIMITS } from "@modelcontextprotocol/server/ext/skills";
import type { Catalog } from "../../catalog/catalog.ts";
import { isEnabled } from "../../catalog/filters.ts";
import { isRefused } from "../../lock/checked-read.ts";
import type { Skill } from "../../skills/skill.ts";
import { pathUnder, SKILL_URI_SCHEME, skillUris, uriKey } from "../../skills/skill-uri.ts";
import { readOwnFile } from "../../tools/support/own-file.ts";
import { isShadowed } from "../../tools/support/skill-place.ts";
import { checkRelativePath } from "../../util/safe-path.ts";
import type { Hub } from "../hub.ts";
import { mimeTypeFor } from "./mime.ts";
import type { Publication } from "./publication.ts";

/**
 * A file of a skill the tools serve but the extension does not publish (a tree node, a name outside
 * the Agent Skills rules, a folder with a link, a skill past the extension's limits), by the skill://
 * URI the tools' answers name it with: read as read_skill_file reads it, so that a client offered only
 * the `skill` tool can still fetch what the skill's instructions use. Undefined when `uri` names no
 * such file (the caller answers "not found"). A published skill's files are the publication's alone,
 * each with the digest skills/get gave for it.
 */
export function readUnpublished(
  hub: Hub,
  pub: Publication,
  uri: string,
): { bytes: Uint8Array; mimeType: string } | undefined {
  const found = fileOf(hub.catalog, uri);
  if (!found || !isEnabled(found.skill, hub.filter)) return undefined;
  const { skill, path, root } = found;
  if (pub.bySkillUri.get(uriKey(root.file("SKILL.md")))?.skill.id === skill.id) return undefined;
  const refusal = hub.frozen?.check(skill, hub.catalog);
  if (refusal) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${uri}: ${refusal.message}`);
  const checked = checkRelativePath(path);
  if (!checked.ok) return undefined;
  const read = readOwnFile(hub.frozen, skill, checked.path, SKILL_LIMITS.bytes, "refuse");
  if (isRefused(read)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${uri}: ${read.refused.message}`);
  if (!read.ok) {
    if (read.code === "FILE_NOT_FOUND") return undefined;
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${uri} cannot be served: ${read.reason}`);
  }
  return { bytes: read.bytes, mimeType: mimeTypeFor(checked.path) };
}

/**
 * The served skill whose URI `uri` lies under, and the file's path under it: `skill://<name>/<path>` for
 * the skill its name reaches, `skill://<source>/<name>/<path>` for one a same-named skill shadows.
 */
function fileOf(
  catalog: Catalog,
  uri: string,
): { skill: Skill; path: string; root: ReturnType<typeof skillUris> } | undefined {
  const key = uriKey(uri);
  if (!key.startsWith(SKILL_URI_SCHEME)) return undefined;
  const [first, second] = key.slice(SKILL_URI_SCHEME.length).split("/").map(decoded);
  const candidates = [
    first === undefined ? undefined : catalog.get(first),
    ...catalog
      .reachableShadowed()
      .filter(({ skill }) => skill.name === second)
      .map(({ skill }) => skill),
  ];
  for (const skill of candidates) {
    if (!skill) continue;
    const root = skillUris(skill, isShadowed(catalog, skill));
    const path = pathUnder(root.dir(""), uri);
    if (path !== undefined) return { skill, path, root };
  }
  return undefined;
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
