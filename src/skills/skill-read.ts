import { realpathSync } from "node:fs";
import { basename, dirname } from "node:path";
import { linksConfined } from "../sources/source-list.ts";
import { inVersionControl } from "../sources/version-control.ts";
import {
  type ConfinedFailure,
  type ConfinedFile,
  type ConfinedReadOptions,
  MAX_INSTRUCTIONS_BYTES,
  readConfined,
  readConfinedText,
} from "../util/confined-read.ts";
import { errnoCode } from "../util/errors.ts";
import { isInside } from "../util/safe-path.ts";
import type { Skill } from "./skill.ts";

/** What of a Skill decides where its files may be read from. */
export type SkillPlace = Pick<Skill, "kind" | "dir" | "file" | "root" | "location" | "source">;

/**
 * The real folder a skill's own file (SKILL.md, a tree node's .md) must be
 * read from: an Agent Skill's folder; for a tree node, the folder holding its
 * .md. For a synced repository or a plugin (source-list.ts's linksConfined)
 * that folder must also be inside the source's real path.
 *
 * Security: local folders may be symlinked in from anywhere (installers do
 * that), so their real folder is the confinement; a repository or a plugin is
 * someone else's content and may not link out of itself.
 */
export function skillReadRoot(skill: SkillPlace): { ok: true; root: string } | ConfinedFailure {
  return sourceConfined(ownFolder(skill), skill);
}

/** The folder holding a skill's own file: an Agent Skill's folder, a tree node's .md's folder. */
function ownFolder(skill: SkillPlace): string {
  return skill.kind === "tree-node" ? dirname(skill.file) : skill.dir;
}

/** What each repository's or plugin's folder resolved to when it was last scanned. */
const scannedRoots = new Map<string, string>();

/**
 * Note what the folder `root` of a repository or plugin resolves to now (a scan begins). Security: a
 * folder swapped for a link after the scan (a plugin's `skills/` pointed at the home folder) must not
 * carry the confinement along with it: reads are held to the folder the scan saw.
 */
export function noteScannedRoot(root: string): void {
  try {
    scannedRoots.set(root, realpathSync(root));
  } catch {
    scannedRoots.delete(root);
  }
}

/**
 * The real path of `folder`, the one every file of a skill is read under (an Agent Skill's folder, a tree
 * node's resource folder): confined to its source for repositories and plugins, and for a tree node to the
 * folder of its own file, in every source, out of version-control metadata.
 *
 * Security: a resource folder (`auth/` beside `auth.md`) that is a link to elsewhere (`/`, `/proc/self`,
 * `~/.ssh`) would confine its node's files to that elsewhere, where every file could be declared and
 * served: it must lie, links followed, in the folder its node's file is read from (skillReadRoot), as a
 * declared file must lie in the resource folder. A tree linked in whole keeps its resource folders. A
 * local Agent Skill's folder may be a link from anywhere (installers make them): it is its own confinement.
 * Nor may a resource folder be, or lie in, version-control metadata (`.git.md`'s `.git/`, `.GIT/`,
 * `GIT~1/`, a node's .md inside a `.git`): its name comes from a file anyone can commit, not from the walk
 * that skips `.git`, and `.git/config` can hold a remote's token (actions/checkout leaves one there).
 */
export function realFolder(folder: string, skill: SkillPlace): { ok: true; root: string } | ConfinedFailure {
  const real = sourceConfined(folder, skill);
  if (!real.ok || skill.kind !== "tree-node") return real;
  const tree = skillReadRoot(skill);
  if (!tree.ok) return tree;
  if (!isInside(tree.root, real.root))
    return {
      ok: false,
      code: "PATH_OUTSIDE_SKILL",
      reason:
        "its resource folder is a link to a folder outside the one its .md file is in (its author must put the files there).",
    };
  let source: string;
  try {
    source = realpathSync(skill.root);
  } catch {
    return { ok: false, code: "FILE_NOT_FOUND", reason: `the folder of its source no longer exists.` };
  }
  if (!inVersionControl(source, real.root)) return real;
  return {
    ok: false,
    code: "PATH_OUTSIDE_SKILL",
    reason:
      "its resource folder is version-control metadata (.git, or a folder in one), whose files are no skill's (its config can hold a remote's credentials).",
  };
}

/** The real path of `folder`, confined to its source for repositories and plugins. */
function sourceConfined(folder: string, skill: SkillPlace): { ok: true; root: string } | ConfinedFailure {
  let real: string;
  try {
    real = realpathSync(folder);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "EACCES" || code === "EPERM")
      return { ok: false, code: "PERMISSION_DENIED", reason: `the skill's folder cannot be read: permission denied.` };
    return { ok: false, code: "FILE_NOT_FOUND", reason: `the skill's folder no longer exists.` };
  }
  if (linksConfined({ location: skill.location, label: skill.source })) {
    let repo: string;
    try {
      repo = realpathSync(skill.root);
    } catch {
      return { ok: false, code: "FILE_NOT_FOUND", reason: `the folder of its ${sourceKind(skill)} no longer exists.` };
    }
    const scanned = scannedRoots.get(skill.root);
    if (scanned !== undefined && scanned !== repo)
      return {
        ok: false,
        code: "PATH_OUTSIDE_SKILL",
        reason: `the folder of its ${sourceKind(skill)} was replaced since it was scanned.`,
      };
    if (!isInside(repo, real))
      return {
        ok: false,
        code: "PATH_OUTSIDE_SKILL",
        reason: `the skill's folder now links outside its ${sourceKind(skill)}.`,
      };
  }
  return { ok: true, root: real };
}

/**
 * A skill's own file (SKILL.md or tree node), as text, confined and capped at 1 MiB. `overflow`:
 * refuse a larger file (default), or read its first `maxBytes` (the search index's prefix).
 */
export function readSkillSource(
  skill: SkillPlace,
  maxBytes = MAX_INSTRUCTIONS_BYTES,
  overflow: "refuse" | "truncate" = "refuse",
): (Omit<ConfinedFile, "bytes"> & { text: string }) | ConfinedFailure {
  const read = (root: string) =>
    readConfinedText({ root, rootIsReal: true, file: basename(skill.file), maxBytes, overflow });
  const known = knownRoots.get(skill) ?? likelyRoot(skill);
  if (known !== undefined) {
    const again = read(known);
    if (again.ok) {
      knownRoots.set(skill, known);
      return again;
    }
    // Moved, re-linked or gone since (or not a real path): resolved afresh, and the answer is that of a first read.
    knownRoots.delete(skill);
  }
  const root = skillReadRoot(skill);
  if (!root.ok) return root;
  const first = read(root.root);
  if (first.ok) knownRoots.set(skill, root.root);
  return first;
}

/**
 * The real folder a skill's file was last read from, by skill (a catalog's skills are replaced when
 * their files change): a search reads ten SKILL.md files, and resolving each folder again was 9 % of
 * its excerpts' time. Still confined: the descriptor opened there must resolve inside it
 * (readConfined), so a folder swapped for a link since reads nothing from elsewhere.
 */
const knownRoots = new WeakMap<SkillPlace, string>();

/**
 * The real folder an Agent Skill's SKILL.md was last read from (its folder's real path, found by that
 * read), or undefined: load_skill lists the folder's files right after reading it, and resolving the
 * folder again cost as much as the listing of a folder holding SKILL.md alone.
 */
export function lastReadFolder(skill: SkillPlace): string | undefined {
  return skill.kind === "tree-node" ? undefined : knownRoots.get(skill);
}

/**
 * The folder a local skill's file is read from, as the catalog names it, tried as its real folder
 * before resolving it (a realpath call was 6 % of a `skill` call's time). As safe: a read
 * succeeds only when the opened file's real path is inside it, and a folder a real path lies inside
 * is itself real (no link on the way); else the read fails and the folder is resolved. Not for synced
 * or plugin skills, whose real folder must also be checked against their source's.
 */
function likelyRoot(skill: SkillPlace): string | undefined {
  return linksConfined({ location: skill.location, label: skill.source }) ? undefined : ownFolder(skill);
}

/** "repository" or "plugin", for the reasons above. */
function sourceKind(skill: Pick<Skill, "location">): string {
  return skill.location === "remote" ? "repository" : "plugin";
}

/** A skill's own file as bytes (for the scanner's digest); `beforeRead` as for readConfined. */
export function readSkillSourceBytes(
  skill: SkillPlace,
  maxBytes = MAX_INSTRUCTIONS_BYTES,
  beforeRead?: ConfinedReadOptions["beforeRead"],
): ConfinedFile | ConfinedFailure {
  const root = skillReadRoot(skill);
  if (!root.ok) return root;
  return readConfined({ root: root.root, rootIsReal: true, file: basename(skill.file), maxBytes, beforeRead });
}
