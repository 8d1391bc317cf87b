import { z } from "zod";
import type { Diagnostic } from "../util/diagnostic.ts";
import { once } from "../util/once.ts";

/** What a skill tree's node declares: its assets, scripts and fields, and a parse's outcome. */

/** Asset kinds a tree node may declare; anything else reads as "other". */
export const ASSET_TYPES = ["template", "config", "example", "schema", "image", "other"] as const;
/** claude: the agent fetches the script with get_asset and runs it; server: run_script runs it. */
export const EXECUTION_MODES = ["claude", "server"] as const;

export const AssetDecl = once(() =>
  z.object({
    file: z.string().describe("Path relative to the skill's resource folder, e.g. assets/Form.tsx.template"),
    description: z.string().describe("When to use this file"),
    type: z.enum(ASSET_TYPES).describe("template, config, example, schema, image or other"),
  }),
);
export type AssetDecl = z.infer<ReturnType<typeof AssetDecl>>;

export const ScriptArg = once(() =>
  z.object({
    name: z.string().describe("Argument name; run_script passes it as SKILL_ARG_<NAME>"),
    description: z.string().describe("What the argument is"),
    required: z.boolean().describe("Whether the argument must be given (default true)"),
    default: z.string().optional().describe("Value used when an optional argument is not given"),
  }),
);
export type ScriptArg = z.infer<ReturnType<typeof ScriptArg>>;

export const ScriptDecl = once(() =>
  z.object({
    file: z.string().describe("Path relative to the skill's resource folder, e.g. scripts/setup.sh"),
    description: z.string().describe("What the script does"),
    execution: z
      .enum(EXECUTION_MODES)
      .describe("claude: fetch it with get_asset and run it yourself; server: run it with run_script"),
    args: z.array(ScriptArg()).describe("Arguments the script accepts"),
  }),
);
export type ScriptDecl = z.infer<ReturnType<typeof ScriptDecl>>;

/** What a tree node adds to a Skill. */
export interface TreeData {
  /** Skill path: the file's path under the source root without ".md" ("ui/react/auth", "ui/_index", "_root"). */
  path: string;
  /** The file's path under the source root ("ui/react/auth.md"), shown in content headers. */
  rel: string;
  /** Skill path of the parent in the same source, after skipping missing intermediates; none for a top node. */
  parent?: string;
  inherit: boolean;
  priority: number;
  assets: AssetDecl[];
  scripts: ScriptDecl[];
  /** Absolute resource folder ("auth.md" → "auth/"), when it exists. */
  resourceDir?: string;
}

/** The frontmatter fields of a valid node, plus what the catalog keeps of the body. */
export interface TreeNodeFields {
  keywords: string[];
  description: string;
  inherit: boolean;
  priority: number;
  assets: AssetDecl[];
  scripts: ScriptDecl[];
  /** Top-level `category`, else `metadata.skillhub.category`; lower-cased. Matched by SKILLHUB_ENABLED_CATEGORIES. */
  category?: string;
  /** Top-level `tags`, else `metadata.skillhub.tags`; lower-cased, de-duplicated. */
  tags: string[];
  /** The frontmatter as JSON text (Skill's frontmatterJson). */
  frontmatterJson: string;
  bodyLines: number;
  hash: string;
}

/**
 * `node`: a servable tree node. `invalid`: declares `keywords` but cannot be
 * served (errors say why). `other`: not a tree node at all; its diagnostics
 * are reported only when the file sits inside a tree.
 */
export type TreeParse =
  | { kind: "node"; node: TreeNodeFields; diagnostics: Diagnostic[] }
  | { kind: "invalid"; diagnostics: Diagnostic[] }
  | { kind: "other"; diagnostics: Diagnostic[] };
