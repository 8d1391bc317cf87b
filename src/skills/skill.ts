import type { Location } from "../sources/source-list.ts";
import type { TreeData } from "./tree-node.ts";

/** What every skill has, whatever its kind. */
interface SkillFields {
  /** Display name: frontmatter `name`, else the folder name; for tree nodes the skill path. */
  name: string;
  /** Lower-cased name: the lookup key. */
  key: string;
  /** `<source-label>:<name>`, unique in a catalog. */
  id: string;
  description: string;
  /** metadata.skillhub.category, lower-cased. */
  category?: string;
  /** metadata.skillhub.tags, lower-cased. */
  tags: readonly string[];
  /** Tree-node keywords; empty for Agent Skills. */
  keywords: readonly string[];
  /** metadata.skillhub.alwaysApply: listed first in the skill catalog. */
  alwaysApply: boolean;
  /**
   * The whole parsed frontmatter, verbatim, as JSON text (read it with frontmatterOf): one string instead
   * of an object tree per skill for every full collection of the heap (even when idle); read only by lint
   * and the web page's detail view.
   */
  frontmatterJson: string;
  /** Number of body lines. */
  bodyLines: number;
  /** Source label (project, global, claude-project, an explicit folder's name, ...). */
  source: string;
  location: Location;
  /** The source's root folder. */
  root: string;
  /** Absolute folder of the skill; for a tree node, its resource folder ("auth.md" → "auth/"), which may not exist. */
  dir: string;
  /** Absolute path of SKILL.md (or the tree node's .md). */
  file: string;
  /** Content hash of the file (hex). */
  hash: string;
  /** The file's stamp when read: a scan parses it again only when the stamp differs. */
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/** A folder with a SKILL.md (the Agent Skills format). */
export interface AgentSkill extends SkillFields {
  kind: "agent-skill";
  tree?: undefined;
}

/** A Markdown file of a skill tree, routed by its keywords. */
export interface TreeNode extends SkillFields {
  kind: "tree-node";
  /** Tree-node data: skill path, parent, inherit, priority, assets, scripts. */
  tree: TreeData;
}

/**
 * One served skill, as the catalog holds it. Bodies are not kept in memory:
 * they are read from `file` when a skill is loaded, so the catalog stays small
 * at 10,000 skills and a load always returns what is on disk. `kind` tells the
 * two apart, and proves `tree` on a tree node.
 */
export type Skill = AgentSkill | TreeNode;

/**
 * The one empty word list every skill without tags or keywords shares: two arrays per skill were a fifth
 * of the heap's objects at 10,000 skills, and each is a cell the runtime's full collections visit.
 */
export const NO_WORDS: readonly string[] = Object.freeze([]);

/**
 * `skill` with its empty word lists replaced by NO_WORDS: done where skills are kept (the parse cache, the
 * catalog snapshot's reader), since a parse, a worker's copy or a file's each come with their own.
 */
export function sharingEmptyWords<T extends Pick<SkillFields, "tags" | "keywords">>(skill: T): T {
  if (skill.tags.length === 0) skill.tags = NO_WORDS;
  if (skill.keywords.length === 0) skill.keywords = NO_WORDS;
  return skill;
}

/** Omit over each member of a union (a plain Omit would merge the members and lose `kind`). */
type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What the parser produces; the scanner adds the source fields. */
export type ParsedSkill = OmitEach<Skill, "id" | "source" | "location" | "root">;
