import { splitFrontmatter } from "../skills/frontmatter.ts";
import type { Skill } from "../skills/skill.ts";
import { readSkillSource } from "../skills/skill-read.ts";
import { sectionHeader } from "../skills/tree-paths.ts";
import { SkillHubError } from "../util/errors.ts";
import type { Catalog } from "./catalog.ts";
import { effectiveChain } from "./tree-chain.ts";

export interface ContentSection {
  /** Skill path ("ui/react/auth"). */
  path: string;
  /** File path under the source root ("ui/react/auth.md"). */
  rel: string;
  /** Markdown body without frontmatter. */
  body: string;
}

/**
 * One section per node, most general first, each under
 * `=== HEADER (from file) ===` and a blank line, sections separated by a
 * blank line. Pure.
 */
export function renderTreeContent(sections: readonly ContentSection[]): string {
  return sections.map((s) => `=== ${sectionHeader(s.path)} (from ${s.rel}) ===\n\n${s.body.trimEnd()}`).join("\n\n");
}

/**
 * A node's content as sections, most general first: with `inherit: true` the
 * bodies of `_root` … node (`headed`: rendered under === headers ===); with
 * `inherit: false`, or for an Agent Skill, only its own body (`headed`
 * false). Reads the files now (the catalog keeps no bodies); an unreadable
 * ancestor is left out; an unreadable node throws (the caller answers as for
 * a skill that has just been deleted). Ancestors disabled by the server
 * filters are included: see treeChain.
 */
export function resolveTreeSections(
  catalog: Catalog,
  skill: Skill,
  readText: (skill: Skill) => string = readConfinedOrThrow,
): { sections: ContentSection[]; headed: boolean } {
  const body = (s: Skill) => splitFrontmatter(readText(s)).body;
  if (skill.kind !== "tree-node")
    return { sections: [{ path: skill.name, rel: skill.name, body: body(skill) }], headed: false };
  const own = (text: string): ContentSection => ({ path: skill.tree.path, rel: skill.tree.rel, body: text });
  if (!skill.tree.inherit) return { sections: [own(body(skill).trimEnd())], headed: false };
  const sections: ContentSection[] = [];
  for (const node of effectiveChain(catalog, skill)) {
    let text: string;
    try {
      text = body(node);
    } catch (error) {
      if (node === skill) throw error;
      continue;
    }
    sections.push({ path: node.tree.path, rel: node.tree.rel, body: text });
  }
  return { sections, headed: true };
}

/** Sections as get_skill / load_skill show them: under headers when inherited, else the body alone. Pure. */
export function renderSections(resolved: { sections: readonly ContentSection[]; headed: boolean }): string {
  return resolved.headed ? renderTreeContent(resolved.sections) : resolved.sections.map((s) => s.body).join("");
}

/**
 * What `get_skill` / `load_skill` return as a tree node's instructions: with
 * `inherit: true` the bodies of `_root` … node under their headers; with
 * `inherit: false` only the node's own body, without header. An Agent Skill
 * gives its body.
 */
export function resolveTreeContent(
  catalog: Catalog,
  skill: Skill,
  readText: (skill: Skill) => string = readConfinedOrThrow,
): string {
  return renderSections(resolveTreeSections(catalog, skill, readText));
}

/** A node's file through the confined reader (inside its folder, regular, at most 1 MiB); throws its code otherwise. */
function readConfinedOrThrow(skill: Skill): string {
  const read = readSkillSource(skill);
  if (!read.ok) throw new SkillHubError(read.code, read.reason);
  return read.text;
}
