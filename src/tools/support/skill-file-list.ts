import { declaredFiles, findFileInChain } from "../../catalog/tree-chain.ts";
import type { Skill, TreeNode } from "../../skills/skill.ts";
import { lastReadFolder } from "../../skills/skill-read.ts";
import { listSkillFiles, type SkillFileEntry } from "../../sources/skill-files.ts";
import { statOf } from "../../util/stat.ts";
import type { ToolContext } from "../definition.ts";
import { locateFile } from "./asset-read.ts";

/**
 * A skill's files as load_skill lists them: every regular file but SKILL.md, nested skills left out;
 * frozen, only the files the lock records (read_skill_file refuses the others). A tree node's: the files
 * it declares, its own and inherited, that are there (the ones every way of fetching a node's file
 * serves, get_asset and resources/read alike), over stdio as over HTTP; frozen, those the lock records.
 * `folders`: an Agent Skill's, empty ones too (listSkillFiles); none frozen (the lock records files only)
 * nor for a tree node (its files are declared one by one).
 */
export function skillFiles(
  skill: Skill,
  ctx: Pick<ToolContext, "deps" | "session">,
): { files: SkillFileEntry[]; folders: string[]; truncated: boolean } {
  if (skill.kind === "tree-node") return { files: declaredEntries(skill, ctx), folders: [], truncated: false };
  const listed = listSkillFiles(skill.dir, {
    realDir: lastReadFolder(skill),
    knownEntries: ctx.deps.knownEntries?.bind(ctx.deps),
  });
  const locked = ctx.deps.frozen?.lockedFiles(skill);
  return locked
    ? { files: listed.files.filter((f) => locked.has(f.path)), folders: [], truncated: listed.truncated }
    : listed;
}

/**
 * A tree node's declared files, its own and inherited, that are on disk now, with their sizes; frozen,
 * only those the lock records for the node that has them (get_asset and read_skill_file refuse the others).
 */
function declaredEntries(skill: TreeNode, ctx: Pick<ToolContext, "deps">): SkillFileEntry[] {
  const catalog = ctx.deps.store.catalog;
  return declaredFiles(catalog, skill).flatMap((path) => {
    const owner = findFileInChain(catalog, skill, path)?.owner;
    if (owner && ctx.deps.frozen?.lockedFiles(owner)?.has(path) === false) return [];
    const located = owner && locateFile(owner, path);
    const stat = located?.ok ? statOf(located.real) : undefined;
    return stat?.isFile() ? [{ path, size: stat.size }] : [];
  });
}

/** A script when the skill has one (the file a remote agent most needs to fetch), else its first file. */
export function exampleFile(paths: readonly string[]): string | undefined {
  return paths.find((path) => path.startsWith("scripts/")) ?? paths[0];
}
