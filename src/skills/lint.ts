import { join, posix } from "node:path";
import { SKILL_FILE } from "../sources/walk.ts";
import { type Diagnostic, type DiagnosticCode, diagnostic } from "../util/diagnostic.ts";
import { frontmatterOf } from "./frontmatter.ts";
import { relativeLinks } from "./markdown-links.ts";
import type { AgentSkill, Skill, TreeNode } from "./skill.ts";
import { ROOT_PATH, resolveParentPath } from "./tree-paths.ts";

/**
 * `skillhub validate`'s strict checks, on top of the lenient parser's
 * diagnostics: serving forgives what the Agent Skills specification forbids;
 * a CI lint must not. Pure.
 */

/** Top-level keys of the Agent Skills specification. */
export const SPEC_KEYS: readonly string[] = [
  "name",
  "description",
  "license",
  "compatibility",
  "allowed-tools",
  "metadata",
];

/** Keys Claude Code reads from SKILL.md besides the specification's. */
export const CLAUDE_CODE_KEYS: readonly string[] = [
  "when_to_use",
  "argument-hint",
  "arguments",
  "disable-model-invocation",
  "user-invocable",
  "model",
  "effort",
  "context",
  "agent",
  "hooks",
  "paths",
  "shell",
];

export const MAX_COMPATIBILITY_LENGTH = 500;

/** Parser warnings that break the specification or a tree's declarations: errors under validate. */
export const STRICT_ERROR_CODES: ReadonlySet<DiagnosticCode> = new Set<DiagnosticCode>([
  "invalid-name",
  "name-mismatch",
  "missing-name",
  "description-too-long",
  "yaml-recovered",
  "missing-file",
  "unsafe-path",
  "invalid-field",
]);

/** A parser diagnostic with validate's severity. */
export function strictSeverity(d: Diagnostic): Diagnostic {
  return d.severity === "warning" && STRICT_ERROR_CODES.has(d.code) ? { ...d, severity: "error" } : d;
}

/** Checks the parser does not make: `compatibility` length and unknown top-level keys. */
export function lintAgentSkill(skill: Skill): Diagnostic[] {
  const out: Diagnostic[] = [];
  const fm = frontmatterOf(skill);
  const compatibility = fm.compatibility;
  if (compatibility !== undefined && compatibility !== null) {
    if (typeof compatibility !== "string")
      out.push(diagnostic("invalid-field", "error", skill.file, "compatibility must be a string."));
    else if (compatibility.length > MAX_COMPATIBILITY_LENGTH) {
      out.push(
        diagnostic(
          "compatibility-too-long",
          "error",
          skill.file,
          `compatibility is ${compatibility.length} characters; the limit is ${MAX_COMPATIBILITY_LENGTH}.`,
        ),
      );
    }
  }
  for (const key of Object.keys(fm)) {
    if (SPEC_KEYS.includes(key) || CLAUDE_CODE_KEYS.includes(key)) continue;
    out.push(
      diagnostic(
        "unknown-key",
        "warning",
        skill.file,
        `unknown top-level key '${key}'; the specification keeps extra data under metadata (metadata.${key}).`,
      ),
    );
  }
  return out;
}

/**
 * A tree node whose folders lack `_index.md` between it and its parent:
 * served (parent resolution skips missing intermediates), but worth saying.
 * `exists` answers for skill paths of the same source.
 */
export function lintTreeNode(skill: TreeNode, exists: (path: string) => boolean): Diagnostic[] {
  const path = skill.tree.path;
  const { parent, skipped } = resolveParentPath(path, exists);
  const missing = skipped.filter((p) => p !== ROOT_PATH);
  if (missing.length === 0) return [];
  const inherits = parent === undefined ? "it has no parent" : `it inherits from ${parent}`;
  // Checked from a folder above the tree (`skillhub validate` in a repository holding skills/): a
  // _root.md counts as the root only at the top of the skills folder served.
  const nestedRoot = path.endsWith(`/${ROOT_PATH}`)
    ? ` (A _root.md is a root only at the top of the skills folder: validate ${path.slice(0, -ROOT_PATH.length - 1)} to check this tree as served from there.)`
    : "";
  return [
    diagnostic(
      "missing-parent",
      "warning",
      skill.file,
      `parent chain: ${missing.map((p) => `${p}.md`).join(", ")} missing, so ${inherits}.${nestedRoot}`,
    ),
  ];
}

/** What lintLinks asks of a skill's folder, by paths inside it ("/"-separated, never climbing out). */
export interface SkillFolderView {
  /** Whether a file or folder is at `path`; "outside" when it is a link leading out of the skill's folder. */
  find(path: string): "present" | "missing" | "outside";
  /** The text of a file of the skill, undefined when it cannot be read. */
  text(path: string): string | undefined;
}

/**
 * Relative links and images of an Agent Skill's SKILL.md, and of the Markdown files it links to (one level),
 * that name no file (`broken-link`) or a file outside the skill's folder (`link-outside`): a remote client
 * reads a skill's files only inside its folder, so `../_shared/ooxml.md` is a file it can never fetch. One
 * warning per target and file, at its first line. Reads only through `folder`.
 */
export function lintLinks(skill: AgentSkill, folder: SkillFolderView): Diagnostic[] {
  const out: Diagnostic[] = [];
  const followed = new Set<string>([SKILL_FILE]);
  const check = (from: string, text: string, follow: boolean) => {
    const file = join(skill.dir, from);
    const dir = posix.dirname(from);
    const told = new Set<string>();
    for (const { target, line } of relativeLinks(text)) {
      const path = posix.normalize(posix.join(dir, target)).replace(/\/+$/, "");
      if (path === "." || told.has(path)) continue;
      const found = path === ".." || path.startsWith("../") ? "outside" : folder.find(path);
      if (found === "outside") {
        told.add(path);
        out.push(
          diagnostic(
            "link-outside",
            "warning",
            file,
            `line ${line} links to '${target}', outside the skill's folder: a remote client cannot read it by this link; move the file into the skill's folder.`,
          ),
        );
      } else if (found === "missing") {
        told.add(path);
        out.push(
          diagnostic("broken-link", "warning", file, `line ${line} links to '${target}', which does not exist.`),
        );
      } else if (follow && /\.md$/i.test(path) && !followed.has(path)) {
        followed.add(path);
        const linked = folder.text(path);
        if (linked !== undefined) check(path, linked, false);
      }
    }
  };
  const body = folder.text(SKILL_FILE);
  if (body !== undefined) check(SKILL_FILE, body, true);
  return out;
}
