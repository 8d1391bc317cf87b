import { join } from "node:path";
import type { Catalog } from "../../catalog/catalog.ts";
import type { Skill } from "../../skills/skill.ts";
import { skillUris } from "../../skills/skill-uri.ts";
import { statOf } from "../../util/stat.ts";
import { claimedFolders, skillsAt } from "./publication.ts";

/**
 * Where a tree node and an Agent Skill would answer to one skill:// URI. A node's path runs on from a
 * skill's name (`ops/release` beside a skill `ops`), so its URIs lie among the skill's:
 * - its resource folder, `skill://ops/release/…`, is the node's: the skill's folder `release/` is left
 *   out of its entry (claimedFolders), since the node's declared scripts and assets must be fetchable;
 * - its own file, `skill://ops/release.md`, stays the skill's file `release.md` when the skill has one:
 *   Agent Skill URIs are what hosts verify and keep, and the node's text is served by its name
 *   (load_skill, get_skill); the node's file then has no URI.
 */
export interface UriConflict {
  uri: string;
  /** Who the URI serves. */
  served: string;
  /** What it would also name, and how that is reached instead. */
  other: string;
}

/** The served skill whose file a tree node's own file URI (`skill://<path>.md`) names, and that file's path. */
export function nodeFileOwner(
  catalog: Catalog,
  node: Skill,
  shadowed: boolean,
): { skill: Skill; path: string } | undefined {
  if (node.kind !== "tree-node") return undefined;
  for (const at of skillsAt(catalog, nodeFileUri(node, shadowed))) {
    if (at.path === "" || at.skill.kind === "tree-node") continue;
    if (statOf(join(at.skill.dir, at.path))?.isFile()) return { skill: at.skill, path: at.path };
  }
  return undefined;
}

/** A tree node's own file's URI, where no skill's file holds it. */
export function nodeFileUri(node: Skill, shadowed: boolean): string {
  return `${skillUris(node, shadowed).dir("")}.md`;
}

/** Every URI a tree node and a served Agent Skill of `catalog` both name, for `skillhub doctor`. */
export function uriConflicts(catalog: Catalog, enabled: (skill: Skill) => boolean): UriConflict[] {
  const conflicts: UriConflict[] = [];
  for (const skill of catalog.skills) {
    if (!enabled(skill)) continue;
    if (skill.kind === "tree-node") {
      const owner = nodeFileOwner(catalog, skill, false);
      if (owner)
        conflicts.push({
          uri: nodeFileUri(skill, false),
          served: `file ${owner.path} of skill '${owner.skill.name}'`,
          other: `the own file of tree node '${skill.name}' (${skill.file}), which load_skill and get_skill serve by name`,
        });
      continue;
    }
    for (const folder of claimedFolders(catalog, skill, false) ?? []) {
      if (!statOf(join(skill.dir, folder))?.isDirectory()) continue;
      const uri = skillUris(skill, false).dir(folder);
      const claimant = skillsAt(catalog, uri).find((at) => at.path === "" && at.skill !== skill);
      if (!claimant) continue;
      const kind = claimant.skill.kind === "tree-node" ? "tree node" : "skill";
      conflicts.push({
        uri: `${uri}/`,
        served: `${kind} '${claimant.shadowed ? claimant.skill.id : claimant.skill.name}'`,
        other: `folder ${folder}/ of skill '${skill.name}', whose files read_skill_file reads by path`,
      });
    }
  }
  return conflicts;
}
