import { closeSync } from "node:fs";
import { SKILL_LIMITS } from "@modelcontextprotocol/server/ext/skills";
import { chainFiles, findFileInChain } from "../../catalog/tree-chain.ts";
import { isRefused } from "../../lock/checked-read.ts";
import type { Skill } from "../../skills/skill.ts";
import type { ScriptDecl } from "../../skills/tree-types.ts";
import { MAX_SKILL_ENTRIES } from "../../sources/skill-files.ts";
import { SKILL_FILE } from "../../sources/walk.ts";
import { sha256Hex } from "../../util/sha256.ts";
import { statOf } from "../../util/stat.ts";
import type { ToolContext } from "../definition.ts";
import { commandLine, downloadCommand, localRunner, optionalArgs } from "./run-yourself.ts";
import { openServedFile, readServedFile } from "./served-file.ts";
import { skillFiles } from "./skill-file-list.ts";
import { shownUri, skillPlace } from "./skill-place.ts";

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
  /** Its size in bytes. */
  size: number;
  executable: boolean;
}

export type ArchiveContents =
  /** `folders`: relative, "/"-separated, parents first; every folder of `files`, and an Agent Skill's empty ones. */
  | { ok: true; files: ArchiveFile[]; folders: string[]; version: string }
  | { ok: false; reason: string; tooLarge?: boolean };

type Deps = Pick<ToolContext, "deps" | "session">;

/** How a file of an archive is read to be hashed: readArchiveFile; tests count the reads. */
export type ArchiveRead = typeof readArchiveFile;

/** Skills whose archive version is remembered (the most recently asked for). */
const VERSIONS_KEPT = 256;

/** Archive versions by the stamps of the files they were read from (stampKey): the last VERSIONS_KEPT. */
const versions = new Map<string, { files: Omit<ArchiveFile, "owner">[]; folders: string[]; version: string }>();

/**
 * What a skill's archive holds: what read_skill_file serves of it and load_skill lists (an Agent Skill's
 * SKILL.md and its files; a tree node's declared files, its own and inherited), each read once through
 * the same confined reader (served-file.ts: its real folder only, no version-control metadata, no nested
 * skill's file, no link leading out, frozen only as the lock records it), and its folders (an Agent
 * Skill's empty ones too, unless frozen: the lock records files only). `version` names these paths, bytes
 * and modes, not their times: a skill that changes gets another, so a link made for the old one is refused
 * (http-archive.ts), and a file touched but unchanged keeps it. A file gone since the listing is left
 * out; any other refusal refuses the archive. A skill whose files' stamps (real path, size, times, inode,
 * mode) and folders are those of a recent answer costs their stats only: its files are not read again
 * (the download reads them, and checks them against their digests).
 */
export function archiveContents(skill: Skill, ctx: Deps, read: ArchiveRead = readArchiveFile): ArchiveContents {
  const listed = skillFiles(skill, ctx);
  if (listed.truncated)
    return {
      ok: false,
      reason: `skill '${skill.name}' has more than ${MAX_SKILL_ENTRIES} files and folders, the most one download holds`,
      tooLarge: true,
    };
  // By the listing's sizes first: a skill past the limit is refused without reading 16 MiB for each answer.
  const listedBytes = listed.files.reduce((n, f) => n + f.size, skill.kind === "agent-skill" ? skill.size : 0);
  if (listedBytes > ARCHIVE_MAX_BYTES) return tooLarge(skill, listedBytes);
  const paths = [...(skill.kind === "agent-skill" ? [SKILL_FILE] : []), ...listed.files.map((f) => f.path)];
  const owners = new Map(paths.map((path) => [path, ownerOf(skill, path, ctx)]));
  const folders = [...new Set([...paths.flatMap(parents), ...listed.folders])].sort();
  // Frozen, every read is checked against the lock, which may change: nothing is remembered.
  const key = ctx.deps.frozen ? undefined : stampKey(skill, owners, folders);
  const known = key === undefined ? undefined : versions.get(key);
  if (key !== undefined && known) {
    versions.delete(key);
    versions.set(key, known);
    return {
      ok: true,
      files: known.files.map((f) => ({ ...f, owner: owners.get(f.path) ?? skill })),
      folders: known.folders,
      version: known.version,
    };
  }
  const files: ArchiveFile[] = [];
  let total = 0;
  for (const [path, owner] of owners) {
    const got = read({ path, owner }, ctx, ARCHIVE_MAX_BYTES - total);
    if (!got.ok && got.code === "FILE_NOT_FOUND") continue;
    if (!got.ok)
      return got.code === "FILE_TOO_LARGE"
        ? tooLarge(skill)
        : { ok: false, reason: `'${path}' of skill '${skill.name}' cannot be served: ${got.reason}` };
    total += got.bytes.length;
    files.push({ path, owner, digest: sha256Hex(got.bytes), size: got.bytes.length, executable: got.executable });
  }
  const named = [
    ...folders.map((f) => `${f}/\n`),
    ...files.map((f) => `${f.path}\0${f.digest}\0${f.executable ? "x" : "-"}\n`),
  ];
  const contents = {
    ok: true as const,
    files,
    folders,
    version: Buffer.from(sha256Hex(named.join("")).slice(0, 24), "hex").toString("base64url"),
  };
  if (key !== undefined) {
    versions.set(key, { files: files.map(({ owner: _, ...f }) => f), folders, version: contents.version });
    if (versions.size > VERSIONS_KEPT) versions.delete(versions.keys().next().value as string);
  }
  return contents;
}

/** The refusal of a skill whose files total more than ARCHIVE_MAX_BYTES: `bytes` when known (a file grew since it was listed). */
function tooLarge(skill: Skill, bytes?: number): Extract<ArchiveContents, { ok: false }> {
  const limit = sizeText(ARCHIVE_MAX_BYTES);
  return {
    ok: false,
    reason:
      bytes === undefined
        ? `the files of skill '${skill.name}' total more than ${limit}, the most one download holds`
        : `the files of skill '${skill.name}' total ${sizeText(bytes)}, more than the ${limit} one download holds`,
    tooLarge: true,
  };
}

/** `bytes` for a reader: `17,825,792 bytes (17 MiB)`. */
function sizeText(bytes: number): string {
  return `${bytes.toLocaleString("en-US")} bytes (${Number((bytes / 2 ** 20).toFixed(1))} MiB)`;
}

/** The folders `path` lies in: `a/b/c.md` → `a`, `a/b`. */
function parents(path: string): string[] {
  const parts = path.split("/").slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

/**
 * What a skill's files are on disk now, without reading them: its folders, and each file's path and, when
 * it opens, its real path, size, times, inode and mode (a file that is gone, "-"). Undefined when one
 * cannot be opened for another reason: the read says why.
 */
function stampKey(skill: Skill, owners: ReadonlyMap<string, Skill>, folders: readonly string[]): string | undefined {
  const stamps = [skill.id, ...folders.map((f) => `${f}/`)];
  for (const [path, owner] of owners) {
    const opened = openServedFile(owner, path, ARCHIVE_MAX_BYTES);
    if (!opened.ok && opened.code !== "FILE_NOT_FOUND") return undefined;
    if (opened.ok) closeSync(opened.fd);
    const s = opened.ok ? opened.stat : undefined;
    stamps.push(
      s && opened.ok
        ? `${path}\0${opened.real}\0${s.size}\0${s.mtimeMs}\0${s.ctimeMs}\0${s.ino}\0${s.mode}`
        : `${path}\0-`,
    );
  }
  return stamps.join("\n");
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

/** `text` as a file name of any system: `ui/react/auth` → `ui-react-auth`. */
function fileSafe(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[.-]+/, "") || "skill";
}

/**
 * The name of a skill's local folder and archive, one per skill: an Agent Skill served under its name, when
 * that is a file name already, keeps it (`pdf`); any other skill (a tree node, one another source's skill
 * shadows) gets a digest of its qualified id after its name (`forms-new-1a2b3c4d`), so two skills
 * never unpack into one folder (`dup` and `s2:dup`; the node `forms/new` and the skill `forms-new`).
 */
export function archiveName(skill: Skill, ctx: Pick<ToolContext, "deps">): string {
  const served = skill.kind === "agent-skill" && ctx.deps.store.catalog.get(skill.name)?.id === skill.id;
  if (served && fileSafe(skill.name) === skill.name) return skill.name;
  return `${fileSafe(skill.name)}-${sha256Hex(skill.id).slice(0, 8)}`;
}

/** The folder an agent is told to unpack a skill into: under its working folder, named by archiveName. */
export function localFolder(skill: Skill, ctx: Pick<ToolContext, "deps">): string {
  return `.skillhub-skills/${archiveName(skill, ctx)}`;
}

/** What a remote agent is told about using a skill's files on its own machine (downloadAdvice). */
export interface DownloadAdvice {
  /** Whether `text` gives the command that downloads the skill's folder. */
  offered: boolean;
  /** The download command and the command line that runs a script; or why there is none, and what to do instead. */
  text: string;
}

/**
 * For a client on another machine (HTTP): one sentence with the shell command that downloads and unpacks
 * the skill's folder, then the command that runs a script of it (`run`, else runnable's) from the agent's
 * folder, as run_script runs a script from the project's (exec/working-dir.ts), so that no byte of it
 * passes through the model and the shell stays where it was. When no link can be offered (a skill past
 * the limits, a file that cannot be served, no address the client reaches the server at), why, and the
 * way that works: each file by resources/read of its URI, which a client can save to disk without the
 * model reading it. Undefined over stdio, and for a skill with nothing to download (its SKILL.md alone).
 */
export function downloadAdvice(
  skill: Skill,
  ctx: Deps & Pick<ToolContext, "hasTool">,
  run?: Pick<ScriptDecl, "args" | "file">,
): DownloadAdvice | undefined {
  if (!ctx.session.remote) return undefined;
  const contents = archiveContents(skill, ctx);
  if (!contents.ok) return withoutDownload(skill, ctx, contents.reason);
  // A skill of its SKILL.md alone has nothing to download: its text is in the answer.
  if (contents.files.every((f) => f.path === SKILL_FILE && skill.kind === "agent-skill")) return undefined;
  const url = ctx.session.archiveUrl?.(skill.id, contents.version);
  if (!url)
    return withoutDownload(
      skill,
      ctx,
      "the server cannot tell the address you reach it at, which a download link names",
    );
  const dir = localFolder(skill, ctx);
  const script = run ?? runnable(skill, contents.files, ctx);
  const then = script ? `, then run from the same folder: \`${commandLine(script, `${dir}/${script.file}`)}\`` : "";
  return {
    offered: true,
    text: `To use its files on your machine, download the skill's folder with one shell command (the link works for an hour; ask again for a new one): \`${downloadCommand(url, dir)}\`${then}.${script ? optionalArgs(script) : ""}`,
  };
}

/**
 * Why a skill has no download command (`why`, a clause), and how an agent gets the files a script needs
 * instead: resources/read of each one's URI, which a client such as Claude Code saves to disk whole (a
 * binary one), where read_skill_file would pass a large file through the model's context part by part.
 */
function withoutDownload(skill: Skill, ctx: Deps & Pick<ToolContext, "hasTool">, why: string): DownloadAdvice {
  const uri = shownUri(skillPlace(skill, ctx), "<path>");
  const reading = ctx.hasTool?.("read_skill_file")
    ? "; read_skill_file, which returns a file in parts through your context, is for text you must read yourself"
    : "";
  return {
    offered: false,
    text: `No download command is offered: ${why}. To run a script, save it and each file it uses into a new local folder under its relative path, fetching each with resources/read of its URI, ${uri} (a client such as Claude Code saves a binary resource to disk without its bytes passing through your context), then run it there${reading}.`,
  };
}

/**
 * The script an agent runs itself: a tree node's first one declared to run on the agent's side (one with
 * arguments first, which shows how to pass them); an Agent Skill's first file under scripts/ that a
 * runner is known for (commandLine) or that is executable. Undefined when there is none.
 */
function runnable(
  skill: Skill,
  files: readonly ArchiveFile[],
  ctx: Deps,
): Pick<ScriptDecl, "args" | "file"> | undefined {
  if (skill.kind === "tree-node") {
    const declared = chainFiles(ctx.deps.store.catalog, skill);
    const yours = [...declared.scripts, ...declared.inheritedScripts].filter((d) => d.execution !== "server");
    return yours.find((d) => d.args.length > 0) ?? yours[0];
  }
  const script = files.find((f) => f.path.startsWith("scripts/") && (localRunner(f.path) || f.executable));
  return script && { args: [], file: script.path };
}
