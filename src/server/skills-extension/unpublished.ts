import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { SKILL_LIMITS } from "@modelcontextprotocol/server/ext/skills";
import { isEnabled } from "../../catalog/filters.ts";
import { findFileInChain } from "../../catalog/tree-chain.ts";
import { isRefused } from "../../lock/checked-read.ts";
import type { Skill } from "../../skills/skill.ts";
import { readSkillSourceBytes } from "../../skills/skill-read.ts";
import { readServedFile } from "../../tools/support/served-file.ts";
import { mimeTypeFor } from "../../util/file-kind.ts";
import { checkRelativePath } from "../../util/safe-path.ts";
import { shownArg, shownReason } from "../../util/shown-arg.ts";
import type { Bound } from "../answer-budget.ts";
import type { Hub } from "../hub.ts";
import { skillsAt } from "./publication.ts";
import { uriKey } from "./uris.ts";

/**
 * A file of a skill the tools serve but the extension does not publish (a tree node, a name outside
 * the Agent Skills rules, a folder with a link, a skill past the extension's limits), at `path` under
 * it, by the skill:// URI `uri` the tools' answers name it with: an Agent Skill's as read_skill_file
 * reads it, a tree node's as get_asset does, so that a client offered only the `skill` tool can still
 * fetch what the skill's instructions use.
 * Undefined when there is no such file (the caller answers "not found"). A published skill's files
 * are the publication's alone, each with the digest skills/get gave for it. `bound` is told the file's
 * size on disk before it is read, and may throw to stop the read.
 */
export function readUnpublished(
  hub: Hub,
  skill: Skill,
  path: string,
  uri: string,
  bound?: Bound,
): { bytes: Uint8Array; mimeType: string } | undefined {
  const refusal = hub.frozen?.check(skill, hub.catalog);
  if (refusal) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${uri}: ${refusal.message}`);
  const checked = checkRelativePath(path);
  if (!checked.ok) return undefined;
  // A tree node's files are those it declares (inherited ones from the ancestor that declares them), as
  // get_asset serves them, within the same limit; the rest of its folder only where read_skill_file,
  // which serves them, is offered. An Agent Skill's are every file of its folder.
  let owner = skill;
  let maxBytes = SKILL_LIMITS.bytes;
  if (skill.kind === "tree-node") {
    const hit = findFileInChain(hub.catalog, skill, checked.path);
    if (hit) {
      owner = hit.owner;
      maxBytes = hub.config.assets.max_size_bytes;
    } else if (!hub.tools().some((tool) => tool.name === "read_skill_file")) return undefined;
  }
  const read = readServedFile(hub.frozen, owner, checked.path, maxBytes, "refuse", { beforeRead: bound });
  // The URI names a path the client chose (up to the URI limit): quoted as the reason quotes the path.
  if (isRefused(read))
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${shownArg(uri)}: ${read.refused.message}`);
  if (!read.ok) {
    if (read.code === "FILE_NOT_FOUND") return undefined;
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `${shownArg(uri)} cannot be served: ${shownReason(read.reason, checked.path)}`,
    );
  }
  return { bytes: read.bytes, mimeType: mimeTypeFor(checked.path) };
}

/**
 * A tree node's own Markdown file, by its place in the tree: `skill://frontend/react-forms.md` is node
 * `frontend/react-forms`'s (a shadowed node's under its source's label), as the answers that name the
 * file give it; read and checked as load_skill reads it, and served as it is (a byte-order mark kept, as
 * every file served by URI is). Undefined when no enabled node is there. `bound` as for readUnpublished.
 */
export function readNodeFile(
  hub: Hub,
  uri: string,
  bound?: Bound,
): { bytes: Uint8Array; mimeType: string } | undefined {
  const key = uriKey(uri);
  if (!key.endsWith(".md")) return undefined;
  for (const at of skillsAt(hub.catalog, key.slice(0, -".md".length))) {
    if (at.path !== "" || at.skill.kind !== "tree-node" || !isEnabled(at.skill, hub.filter)) continue;
    const read = readSkillSourceBytes(at.skill, undefined, bound);
    if (!read.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${uri} cannot be served: ${read.reason}`);
    const refused = hub.frozen?.checkRead(at.skill, null, read.sha256);
    if (refused) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${uri}: ${refused.message}`);
    return { bytes: read.bytes, mimeType: "text/markdown" };
  }
  return undefined;
}
