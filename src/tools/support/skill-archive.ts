import { SKILL_LIMITS } from "@modelcontextprotocol/server/ext/skills";
import { chainFiles, findFileInChain } from "../../catalog/tree-chain.ts";
import { isRefused } from "../../lock/checked-read.ts";
import type { Skill } from "../../skills/skill.ts";
import { SKILL_FILE } from "../../sources/walk.ts";
import { sha256Hex } from "../../util/sha256.ts";
import { statOf } from "../../util/stat.ts";
import type { ToolContext } from "../definition.ts";
import { commandLine, downloadCommand } from "./run-yourself.ts";
import { readServedFile } from "./served-file.ts";
import { exampleFile, skillFiles } from "./skill-file-list.ts";

/** Most bytes of files one archive holds: the skills extension's limit for a whole skill (16 MiB). */
export const ARCHIVE_MAX_BYTES = SKILL_LIMITS.bytes;

/** One file of a skill's archive, as read when its contents were taken. */
export interface ArchiveFile {
  /** Relative, "/"-separated: the path read_skill_file serves it by. */
  path: string;
  /** The skill whose folder has it (a tree node's inherited file is its ancestor's). */
  owner: Skill;
  /** sha256 of its bytes, hex. */
  digest: string;
  executable: boolean;
}

export type ArchiveContents =
  | { ok: true; files: ArchiveFile[]; version: string }
  | { ok: false; reason: string; tooLarge?: boolean };

type Deps = Pick<ToolContext, "deps" | "session">;

/**
 * What a skill's archive holds: what read_skill_file serves of it and load_skill lists (an Agent Skill's
 * SKILL.md and its files; a tree node's declared files, its own and inherited), each read once through
 * the same confined reader (served-file.ts: its real folder only, no version-control metadata, no nested
 * skill's file, no link leading out, frozen only as the lock records it). `version` names these bytes and
 * modes: a skill that changes gets another, so a link made for the old one is refused (http-archive.ts).
 * A file gone since the listing is left out; any other refusal refuses the archive.
 */
export function archiveContents(skill: Skill, ctx: Deps): ArchiveContents {
  const listed = skillFiles(skill, ctx);
  if (listed.truncated)
    return { ok: false, reason: `skill '${skill.name}' has too many files to download at once`, tooLarge: true };
  const paths = [...(skill.kind === "agent-skill" ? [SKILL_FILE] : []), ...listed.files.map((f) => f.path)];
  const files: ArchiveFile[] = [];
  let total = 0;
  for (const path of paths) {
    const owner = ownerOf(skill, path, ctx);
    const read = readArchiveFile({ path, owner }, ctx, ARCHIVE_MAX_BYTES - total);
    if (!read.ok && read.code === "FILE_NOT_FOUND") continue;
    if (!read.ok)
      return read.code === "FILE_TOO_LARGE"
        ? {
            ok: false,
            reason: `the files of skill '${skill.name}' total more than ${ARCHIVE_MAX_BYTES} bytes (16 MiB), the most one download holds`,
            tooLarge: true,
          }
        : { ok: false, reason: `'${path}' of skill '${skill.name}' cannot be served: ${read.reason}` };
    total += read.bytes.length;
    files.push({ path, owner, digest: sha256Hex(read.bytes), executable: read.executable });
  }
  const version = sha256Hex(files.map((f) => `${f.path}\0${f.digest}\0${f.executable ? "x" : "-"}\n`).join(""));
  return { ok: true, files, version: Buffer.from(version.slice(0, 24), "hex").toString("base64url") };
}

/** A file of an archive, read again to be sent: its bytes, and whether its mode lets it run. */
export function readArchiveFile(
  file: Pick<ArchiveFile, "path" | "owner">,
  ctx: Deps,
  maxBytes: number = ARCHIVE_MAX_BYTES,
): { ok: true; bytes: Uint8Array; executable: boolean } | { ok: false; code: string; reason: string } {
  const read = readServedFile(ctx.deps.frozen, file.owner, file.path, maxBytes, "refuse");
  if (isRefused(read)) return { ok: false, code: "LOCK_REFUSED", reason: read.refused.message };
  if (!read.ok) return read;
  // The mode of the file that was opened (a link's target): scripts keep their executable bit.
  const executable = ((statOf(read.real)?.mode ?? 0) & 0o111) !== 0;
  return { ok: true, bytes: read.bytes, executable };
}

/** The skill whose folder has `path`: a tree node's declared file may be an ancestor's. */
function ownerOf(skill: Skill, path: string, ctx: Deps): Skill {
  if (skill.kind !== "tree-node") return skill;
  return findFileInChain(ctx.deps.store.catalog, skill, path)?.owner ?? skill;
}

/** A skill's name as a file name of any system: `ui/react/auth` → `ui-react-auth`. */
export function archiveName(skill: Skill): string {
  return skill.name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[.-]+/, "") || "skill";
}

/** The folder an agent is told to unpack a skill into: under its working folder, named after the skill. */
export function localFolder(skill: Skill): string {
  return `.skillhub-skills/${archiveName(skill)}`;
}

/**
 * For a client on another machine whose session can hand out download links (HTTP): one sentence with
 * the shell command that downloads and unpacks the skill's folder, then the command that runs a script
 * of it (`run`, else runLine's), so that no byte of it passes through the model. Undefined
 * over stdio, or when no link can be made (the sentence on fetching files one by one then stands alone).
 */
export function downloadAdvice(skill: Skill, ctx: Deps, run?: string): string | undefined {
  const link = ctx.session.archiveUrl;
  if (!link) return undefined;
  const contents = archiveContents(skill, ctx);
  // A skill of its SKILL.md alone has nothing to download: its text is in the answer.
  if (!contents.ok || contents.files.every((f) => f.path === SKILL_FILE && skill.kind === "agent-skill"))
    return undefined;
  const url = link(skill.id, contents.version);
  if (!url) return undefined;
  const dir = localFolder(skill);
  const then = run ?? runLine(skill, contents.files, ctx);
  return `To use its files on your machine, download the skill's folder with one shell command (the link works for an hour; ask again for a new one): \`${downloadCommand(url, dir)}\`${then ? `, then run from that folder: \`cd ${dir} && ${then}\`` : ""}.`;
}

/**
 * The command line of a script an agent runs itself: a tree node's first one declared to run on the
 * agent's side (one with arguments first, which shows how to pass them); an Agent Skill's first file
 * under scripts/.
 */
function runLine(skill: Skill, files: readonly ArchiveFile[], ctx: Deps): string | undefined {
  if (skill.kind === "tree-node") {
    const declared = chainFiles(ctx.deps.store.catalog, skill);
    const yours = [...declared.scripts, ...declared.inheritedScripts].filter((d) => d.execution !== "server");
    const shown = yours.find((d) => d.args.length > 0) ?? yours[0];
    return shown && commandLine(shown, shown.file);
  }
  const script = exampleFile(files.map((f) => f.path).filter((path) => path.startsWith("scripts/")));
  return script && commandLine({ args: [] }, script);
}
