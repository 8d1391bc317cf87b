import { basename } from "node:path";
import { type Diagnostic, diagnostic, recoveredDiagnostic } from "../util/diagnostic.ts";
import { sha256Hex } from "../util/sha256.ts";
import {
  descriptionProblem,
  frontmatterText,
  scalarText,
  scalarWord,
  splitFrontmatter,
  type TooMany,
  tagWords,
  tooManyWarnings,
  type Warn,
} from "./frontmatter.ts";
import { parseLenientYaml } from "./lenient-yaml.ts";
import { countLines } from "./markdown.ts";
import type { ParsedSkill } from "./skill.ts";

/** Agent Skills specification: lower-case letters, digits, single hyphens, 1–64 chars. */
export const NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const MAX_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_BODY_LINES = 500;

export interface SkillFileInput {
  /** Absolute path of SKILL.md. */
  file: string;
  /** Its folder. */
  dir: string;
  text: string;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** Set when `text` is a digest (frontmatter + heading lines, see catalog/skill-digest.ts): the real body's line count. */
  bodyLines?: number;
  /** Set with a digest: the sha256 (hex) of the whole file's bytes. */
  hash?: string;
}

export interface ParseResult {
  /** Undefined when the skill cannot be served; the diagnostics say why. */
  skill?: ParsedSkill;
  diagnostics: readonly Diagnostic[];
}

/**
 * Parse one SKILL.md leniently: serve whatever can be served,
 * and say what was wrong. Pure: takes the text, touches nothing.
 */
export function parseAgentSkill(input: SkillFileInput): ParseResult {
  const { file, dir } = input;
  const diagnostics: Diagnostic[] = [];
  const split = splitFrontmatter(input.text);
  if (split.kind === "none") {
    diagnostics.push(
      diagnostic(
        "no-frontmatter",
        "error",
        file,
        "no YAML frontmatter: the file must start with a '---' line, then name and description, then '---'. Skill not served.",
      ),
    );
    return { diagnostics };
  }
  if (split.kind === "unclosed") {
    diagnostics.push(
      diagnostic("unclosed-frontmatter", "error", file, "the frontmatter has no closing '---' line. Skill not served."),
    );
    return { diagnostics };
  }
  const yaml = parseLenientYaml(split.frontmatter);
  if (!yaml.ok) {
    diagnostics.push(
      diagnostic("yaml-error", "error", file, `frontmatter is not valid YAML (${yaml.error}). Skill not served.`),
    );
    return { diagnostics };
  }
  if (yaml.recovered.length > 0) diagnostics.push(recoveredDiagnostic(file, yaml.recovered));
  const data = yaml.data;
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    diagnostics.push(
      diagnostic(
        "invalid-frontmatter",
        "error",
        file,
        "frontmatter must be a mapping of keys (name: ..., description: ...). Skill not served.",
      ),
    );
    return { diagnostics };
  }
  const fm = data as Record<string, unknown>;
  const folder = basename(dir);

  // A description missing is said with the name's problems, so one run of `validate` lists them all.
  const problem = descriptionProblem(fm.description);
  if (problem !== undefined)
    diagnostics.push(
      diagnostic("missing-description", "error", file, `${problem}; agents choose skills by it. Skill not served.`),
    );

  let name = scalarText(fm.name)?.trim() ?? "";
  if (name === "") {
    diagnostics.push(
      diagnostic("missing-name", "warning", file, `frontmatter has no name; using the folder name '${folder}'.`),
    );
    name = folder;
  } else {
    if (!NAME_PATTERN.test(name) || name.length > MAX_NAME_LENGTH) {
      diagnostics.push(
        diagnostic(
          "invalid-name",
          "warning",
          file,
          `name '${name}' is not 1-64 lower-case letters, digits and single hyphens${nameFix(name, folder)}${problem === undefined ? "; SkillHub serves it as written" : ""}.`,
        ),
      );
    }
    if (name !== folder) {
      diagnostics.push(
        diagnostic(
          "name-mismatch",
          "warning",
          file,
          `name '${name}' differs from its folder '${folder}' (${NAME_PATTERN.test(folder) ? `set \`name: ${folder}\`, or rename the folder` : "rename the folder to match"})${problem === undefined ? `; SkillHub serves it as '${name}'` : ""}.`,
        ),
      );
    }
  }
  if (problem !== undefined) return { diagnostics };
  const description = (scalarText(fm.description) as string).trim();
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    diagnostics.push(
      diagnostic(
        "description-too-long",
        "warning",
        file,
        `description is ${description.length} characters; the limit is ${MAX_DESCRIPTION_LENGTH}.`,
      ),
    );
  }
  const bodyLines = input.bodyLines ?? countLines(split.body);
  if (bodyLines > MAX_BODY_LINES) {
    diagnostics.push(
      diagnostic(
        "body-too-long",
        "warning",
        file,
        `body has ${bodyLines} lines; keep SKILL.md under ${MAX_BODY_LINES} and move detail to files.`,
      ),
    );
  }

  const warn: Warn = (message) => diagnostics.push(diagnostic("invalid-field", "warning", file, message));
  const hub = skillhubMetadata(fm.metadata, tooManyWarnings(diagnostics, file, "skill"), warn);
  return {
    skill: {
      kind: "agent-skill",
      name,
      key: name.toLowerCase(),
      description,
      // metadata.skillhub.category first; a top-level `category:` (seen in real collections) counts too.
      category: hub.category ?? scalarWord(fm.category, "category", warn),
      tags: hub.tags,
      keywords: [],
      alwaysApply: hub.alwaysApply,
      frontmatterJson: frontmatterText(fm),
      bodyLines,
      dir,
      file,
      hash: input.hash ?? sha256Hex(input.text),
      size: input.size,
      mtimeMs: input.mtimeMs,
      ctimeMs: input.ctimeMs,
      ino: input.ino,
    },
    diagnostics,
  };
}

/** The body without frontmatter, newlines kept (what load_skill serves). */
export function skillBody(text: string): string {
  const split = splitFrontmatter(text);
  return split.body;
}

interface HubMetadata {
  category?: string;
  tags: string[];
  alwaysApply: boolean;
}

/**
 * metadata.skillhub.{category,tags,alwaysApply}, lower-cased and trimmed. The Agent Skills
 * spec makes `metadata` a map of strings, so the same keys are also read flat as `skillhub.category`,
 * `skillhub.tags` (comma list) and `skillhub.alwaysApply`: a skill written that way stays strictly valid
 * and is published by the skills extension too.
 */
function skillhubMetadata(metadata: unknown, tooMany: TooMany, warn: Warn): HubMetadata {
  if (typeof metadata !== "object" || metadata === null) return { tags: [], alwaysApply: false };
  const m = metadata as Record<string, unknown>;
  const nested = typeof m.skillhub === "object" && m.skillhub !== null ? (m.skillhub as Record<string, unknown>) : {};
  const h: Record<string, unknown> = {
    category: nested.category ?? m["skillhub.category"],
    tags: nested.tags ?? m["skillhub.tags"],
    alwaysApply: nested.alwaysApply ?? m["skillhub.alwaysApply"],
  };
  const category = scalarWord(h.category, "category", warn);
  const rawTags = Array.isArray(h.tags) ? h.tags : typeof h.tags === "string" ? h.tags.split(",") : [];
  const tags = tagWords(rawTags, tooMany, warn);
  const alwaysApply =
    h.alwaysApply === true || (typeof h.alwaysApply === "string" && h.alwaysApply.trim().toLowerCase() === "true");
  return { category, tags, alwaysApply };
}

/**
 * How a name that breaks the naming rule is written (`My Skill` → `my-skill`), when it can be: its folder's
 * name when that one keeps the rule, so the fix also ends a mismatch with the folder.
 */
function nameFix(name: string, folder: string): string {
  if (NAME_PATTERN.test(folder) && folder.length <= MAX_NAME_LENGTH) return ` (write '${folder}')`;
  const fixed = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_NAME_LENGTH)
    .replace(/-+$/, "");
  return NAME_PATTERN.test(fixed) ? ` (write '${fixed}')` : "";
}
