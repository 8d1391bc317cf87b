import { type Diagnostic, diagnostic, recoveredDiagnostic } from "../util/diagnostic.ts";
import { checkRelativePath } from "../util/safe-path.ts";
import { sha256Hex } from "../util/sha256.ts";
import {
  descriptionProblem,
  firstEntries,
  frontmatterText,
  scalarText,
  scalarWord,
  splitFrontmatter,
  type TooMany,
  tagWords,
  tooManyWarnings,
  type Warn,
  wordOf,
} from "./frontmatter.ts";
import { parseLenientYaml } from "./lenient-yaml.ts";
import { countLines } from "./markdown.ts";
import { ASSET_TYPES, type AssetDecl, type ScriptArg, type ScriptDecl, type TreeParse } from "./tree-types.ts";

export {
  ASSET_TYPES,
  AssetDecl,
  ScriptArg,
  ScriptDecl,
  type TreeData,
  type TreeNodeFields,
  type TreeParse,
} from "./tree-types.ts";

/**
 * Parse one Markdown file as a tree node: `keywords` must be
 * a non-empty list and `description` a non-empty string; `inherit` defaults
 * to true, `priority` to 0, `assets`/`scripts` to []. Lenient: a bad optional
 * field is a warning and its default is used. `hash`: the sha256 (hex) of the file's bytes, when
 * the reader has it (else that of `text`). Pure.
 */
export function parseTreeNode(file: string, text: string, hash?: string): TreeParse {
  const split = splitFrontmatter(text);
  if (split.kind === "none")
    return other(file, "no-frontmatter", "no YAML frontmatter (keywords and description); not a tree node, skipped.");
  if (split.kind === "unclosed")
    return other(file, "unclosed-frontmatter", "the frontmatter has no closing '---' line; skipped.");
  const yaml = parseLenientYaml(split.frontmatter);
  if (!yaml.ok) return other(file, "yaml-error", `frontmatter is not valid YAML (${yaml.error}); skipped.`);
  if (typeof yaml.data !== "object" || yaml.data === null || Array.isArray(yaml.data)) {
    return other(
      file,
      "invalid-frontmatter",
      "frontmatter must be a mapping (keywords: [...], description: ...); skipped.",
    );
  }
  const fm = yaml.data as Record<string, unknown>;
  if (!("keywords" in fm))
    return other(file, "missing-keywords", "frontmatter has no keywords list, so this is not a tree node; skipped.");
  const diagnostics: Diagnostic[] = [];
  if (yaml.recovered.length > 0) diagnostics.push(recoveredDiagnostic(file, yaml.recovered));
  const warn = (message: string) => diagnostics.push(diagnostic("invalid-field", "warning", file, message));
  const tooMany = tooManyWarnings(diagnostics, file, "tree node");
  const keywords = keywordList(fm.keywords, warn, tooMany);
  const problem = descriptionProblem(fm.description);
  const description = scalarText(fm.description)?.trim() ?? "";
  if (keywords.length === 0)
    diagnostics.push(
      diagnostic("missing-keywords", "error", file, "keywords must be a non-empty list of words. Node not served."),
    );
  if (problem !== undefined)
    diagnostics.push(
      diagnostic(
        "missing-description",
        "error",
        file,
        `${problem}; get_skill shows it to choose between nodes. Node not served.`,
      ),
    );
  if (keywords.length === 0 || problem !== undefined) return { kind: "invalid", diagnostics };
  const unsafe = (what: string, path: string, reason: string) =>
    diagnostics.push(
      diagnostic(
        "unsafe-path",
        "warning",
        file,
        `${what} '${path}' ${reason}; ignored (paths are relative to the node's resource folder).`,
      ),
    );
  const bodyLines = countLines(split.body);
  const category = categoryOf(fm, warn);
  return {
    kind: "node",
    node: {
      keywords,
      description,
      inherit: inheritFlag(fm.inherit, warn),
      priority: priorityOf(fm.priority, warn),
      assets: entries(fm.assets, "assets", warn, tooMany).flatMap((e) => assetOf(e, warn, unsafe)),
      scripts: entries(fm.scripts, "scripts", warn, tooMany).flatMap((e) => scriptOf(e, warn, unsafe, tooMany)),
      ...(category === undefined ? {} : { category }),
      tags: tagsOf(fm, warn, tooMany),
      frontmatterJson: frontmatterText(fm),
      bodyLines,
      hash: hash ?? sha256Hex(text),
    },
    diagnostics,
  };
}

function other(file: string, code: Diagnostic["code"], message: string): TreeParse {
  return { kind: "other", diagnostics: [diagnostic(code, "warning", file, message)] };
}

/** A list of words, lower-cased, trimmed, de-duplicated in order; "a, b" is read as a list too. */
function keywordList(value: unknown, warn: Warn, tooMany: TooMany): string[] {
  const listed = Array.isArray(value)
    ? value
    : typeof value === "string"
      ? value.split(",")
      : value == null
        ? []
        : [value];
  if (!Array.isArray(value) && typeof value !== "string" && value != null) warn("keywords must be a list of words.");
  const out = new Set<string>();
  for (const item of firstEntries(listed, "keywords", tooMany)) {
    const text = scalarText(item);
    if (text === undefined) {
      warn(`keyword ${JSON.stringify(item)} is not a word; ignored.`);
      continue;
    }
    const keyword = wordOf(text, "keyword", warn);
    if (keyword) out.add(keyword);
  }
  return [...out];
}

/** `metadata.skillhub`, the place Agent Skills keep category and tags. */
function hubMetadata(fm: Record<string, unknown>): Record<string, unknown> {
  const hub = (fm.metadata as { skillhub?: unknown } | null | undefined)?.skillhub;
  return typeof hub === "object" && hub !== null && !Array.isArray(hub) ? (hub as Record<string, unknown>) : {};
}

/** A tree node's own `category:` wins over `metadata.skillhub.category` (the Agent-Skill spelling, accepted too). */
function categoryOf(fm: Record<string, unknown>, warn: Warn): string | undefined {
  const value = fm.category ?? hubMetadata(fm).category;
  if (value === undefined || value === null) return undefined;
  if (scalarText(value) === undefined) warn(`category must be a word, not ${JSON.stringify(value)}; ignored.`);
  return scalarWord(value, "category", warn);
}

/** Top-level `tags`, else `metadata.skillhub.tags`: a list, or "a, b". */
function tagsOf(fm: Record<string, unknown>, warn: Warn, tooMany: TooMany): string[] {
  const value = fm.tags ?? hubMetadata(fm).tags;
  if (value === undefined || value === null) return [];
  const raw = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : undefined;
  if (raw === undefined) {
    warn(`tags must be a list of words, not ${JSON.stringify(value)}; ignored.`);
    return [];
  }
  return tagWords(raw, tooMany, warn);
}

function inheritFlag(value: unknown, warn: Warn): boolean {
  if (value === undefined || value === null || value === true) return true;
  if (value === false) return false;
  if (typeof value === "string" && ["false", "no", "off"].includes(value.trim().toLowerCase())) return false;
  if (typeof value === "string" && ["true", "yes", "on"].includes(value.trim().toLowerCase())) return true;
  warn(`inherit must be true or false, not ${JSON.stringify(value)}; using true.`);
  return true;
}

function priorityOf(value: unknown, warn: Warn): number {
  if (value === undefined || value === null) return 0;
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n === "number" && Number.isFinite(n)) return n;
  warn(`priority must be a number, not ${JSON.stringify(value)}; using 0.`);
  return 0;
}

function entries(value: unknown, key: string, warn: Warn, tooMany: TooMany): readonly unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return firstEntries(value, key, tooMany);
  warn(`${key} must be a list of {file, description} entries; ignored.`);
  return [];
}

/** `{file, description}` from an entry; a bare string is a file without description. */
function fileEntry(
  entry: unknown,
  kind: string,
  warn: Warn,
): { file: string; description: string; fields: Record<string, unknown> } | undefined {
  const fields =
    typeof entry === "string"
      ? { file: entry }
      : typeof entry === "object" && entry !== null && !Array.isArray(entry)
        ? (entry as Record<string, unknown>)
        : undefined;
  const file = scalarText(fields?.file)?.trim();
  if (!fields || !file) {
    warn(`${kind} entry ${JSON.stringify(entry)} has no file; ignored.`);
    return undefined;
  }
  return { file, description: scalarText(fields.description)?.trim() ?? "", fields };
}

type Unsafe = (what: string, path: string, reason: string) => void;

function assetOf(entry: unknown, warn: Warn, unsafe: Unsafe): AssetDecl[] {
  const e = fileEntry(entry, "asset", warn);
  if (!e) return [];
  const checked = checkRelativePath(e.file);
  if (!checked.ok) {
    unsafe("asset", e.file, checked.reason);
    return [];
  }
  const rawType = scalarText(e.fields.type)?.trim().toLowerCase();
  const type = (ASSET_TYPES as readonly string[]).includes(rawType ?? "") ? (rawType as AssetDecl["type"]) : "other";
  if (rawType !== undefined && type !== rawType)
    warn(`asset '${e.file}' has type '${rawType}'; expected one of ${ASSET_TYPES.join(", ")}; using other.`);
  return [{ file: checked.path, description: e.description, type }];
}

function scriptOf(entry: unknown, warn: Warn, unsafe: Unsafe, tooMany: TooMany): ScriptDecl[] {
  const e = fileEntry(entry, "script", warn);
  if (!e) return [];
  const checked = checkRelativePath(e.file);
  if (!checked.ok) {
    unsafe("script", e.file, checked.reason);
    return [];
  }
  const rawExecution = scalarText(e.fields.execution)?.trim().toLowerCase();
  const execution = rawExecution === "server" ? "server" : "claude";
  if (rawExecution !== undefined && rawExecution !== execution)
    warn(`script '${e.file}' has execution '${rawExecution}'; expected claude or server; using claude.`);
  const args: ScriptArg[] = [];
  for (const arg of entries(e.fields.args, `script '${e.file}' args`, warn, tooMany)) {
    const a = typeof arg === "object" && arg !== null && !Array.isArray(arg) ? (arg as Record<string, unknown>) : {};
    const name = scalarText(a.name)?.trim();
    if (!name) {
      warn(`script '${e.file}' has an argument without a name; ignored.`);
      continue;
    }
    const fallback = scalarText(a.default);
    args.push({
      name,
      description: scalarText(a.description)?.trim() ?? "",
      required: a.required !== false,
      ...(fallback === undefined ? {} : { default: fallback }),
    });
  }
  return [{ file: checked.path, description: e.description, execution, args }];
}
