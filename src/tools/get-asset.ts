import { z } from "zod";
import { declaredFiles, findFileInChain } from "../catalog/tree-chain.ts";
import { checkRelativePath } from "../util/safe-path.ts";
import { shownArg, shownReason } from "../util/shown-arg.ts";
import { defineTool, READ_ONLY, withinAnswerBudget } from "./definition.ts";
import { errorResult, imageResult, jsonTextHandler, structuredResult } from "./results.ts";
import { locateFile, readAsset } from "./support/asset-read.ts";
import { skillPathArg } from "./support/skill-path-arg.ts";
import { notUnder, relativeOf, skillPlace } from "./support/skill-place.ts";
import { lookupSkillPath } from "./support/tree-lookup.ts";

const Input = () =>
  z
    .object({
      skill_path: skillPathArg().describe(
        "Skill path from get_skill or list_skills, e.g. 'ui/react/auth' (an Agent Skill's name works too)",
      ),
      file: z
        .string()
        .min(1, "file cannot be empty")
        .describe(
          "File path relative to the skill's resource folder, exactly as get_skill lists it, e.g. 'assets/AuthProvider.tsx.template', or its skill:// URI",
        ),
    })
    .strict();

const Output = () =>
  z.object({
    skill_path: z.string(),
    resolved_from: z
      .string()
      .optional()
      .describe("Set when the file is inherited: the ancestor's skill path that declares it"),
    file: z.string(),
    content: z.string().optional().describe("Text files: the content, UTF-8"),
    content_base64: z
      .string()
      .optional()
      .describe("Binary files (images, fonts, PDF, zip, or NUL bytes in the first KiB): the bytes, base64"),
    size_bytes: z.number().int(),
    type: z
      .string()
      .describe("The asset's declared type (template, config, example, schema, image, other), or 'script'"),
    mime_type: z.string().optional().describe("Binary files: the MIME type"),
    uri: z
      .string()
      .optional()
      .describe(
        "For a client on another machine: the file's skill:// URI (read_skill_file and resources/read take it)",
      ),
  });

/** A declared asset or script of a tree node (inherited ones resolved up the chain), or a file of an Agent Skill. */
export const getAssetTool = defineTool({
  name: "get_asset",
  title: "Get Skill Asset",
  annotations: READ_ONLY,
  inputSchema: Input,
  outputSchema: Output,
  description: () =>
    "Return the content of an asset or script of a skill: a file listed by get_skill in assets, scripts, inherited_assets or " +
    "inherited_scripts (inherited files are found up the skill's parent chain). Text comes back in `content`, binary files in " +
    "`content_base64` with `mime_type`, and a whole PNG, JPEG, GIF or WebP also as an image. Files over 1 MiB (by default) " +
    "are refused. Scripts with execution 'claude' are meant to be fetched here and run by you.",
  handler: jsonTextHandler(async ({ skill_path, file: asked }, ctx) => {
    const { deps } = ctx;
    const found = await lookupSkillPath(skill_path, deps);
    if (found.error) return found.error;
    const skill = found.skill;
    const file = relativeOf(skill, asked, ctx);
    if (file === undefined) return notUnder(skill, asked, ctx, "file");
    const checked = checkRelativePath(file);
    if (!checked.ok) {
      return errorResult(
        "PATH_OUTSIDE_SKILL",
        `File path '${shownArg(file)}' ${checked.reason}. Give a path relative to the skill's resource folder, as get_skill lists it.`,
        { skill_path: skill.name, file: shownArg(file) },
      );
    }
    const catalog = deps.store.catalog;
    let owner = skill;
    let resolvedFrom: string | undefined;
    let type = "other";
    if (skill.kind === "tree-node") {
      const hit = findFileInChain(catalog, skill, checked.path);
      const ancestor = hit?.from === undefined ? skill : catalog.get(`${skill.source}:${hit.from}`);
      if (!hit || !ancestor) {
        const listed = declaredFiles(catalog, skill);
        return errorResult(
          "FILE_NOT_FOUND",
          `Asset '${shownArg(checked.path)}' not found for skill '${skill.name}'. ${listed.length > 0 ? `Declared files: ${listed.join(", ")}.` : "It declares no assets or scripts."} Only files declared in the skill's frontmatter are served.`,
          { skill_path: skill.name, file: shownArg(checked.path), available: listed },
        );
      }
      owner = ancestor;
      resolvedFrom = hit.from;
      type = hit.kind === "script" ? "script" : (hit.decl as { type: string }).type;
    }
    const located = locateFile(owner, checked.path);
    if (!located.ok) {
      const message =
        located.code === "PATH_OUTSIDE_SKILL"
          ? "folder" in located
            ? `'${shownArg(checked.path)}' of '${owner.name}' is not served: ${located.reason}. Go on without it.`
            : `'${shownArg(checked.path)}' resolves outside the skill's folder and is not served.`
          : skill.kind === "tree-node"
            ? `Asset '${checked.path}' is declared by '${owner.name}' but missing on disk (${shownReason(located.reason, checked.path)}). The skill is still usable without it.`
            : `File '${shownArg(checked.path)}' not found in skill '${skill.name}' (${shownReason(located.reason, checked.path)}).`;
      return errorResult(located.code, message, { skill_path: skill.name, file: shownArg(checked.path) });
    }
    // Security: over HTTP, the file's size on disk counts against the answers held at once before it is read,
    // and its text's escapes as they are read.
    const built = await withinAnswerBudget(ctx, (bound) =>
      readAsset(owner, checked.path, deps.config.assets.max_size_bytes, { frozen: deps.frozen, bound }),
    );
    if ("refused" in built) return built.refused;
    const read = built.value;
    if (!read.ok) {
      return errorResult(read.code, read.message, {
        skill_path: skill.name,
        file: checked.path,
        ...(read.size === undefined ? {} : { size_bytes: read.size, max_bytes: deps.config.assets.max_size_bytes }),
      });
    }
    deps.track(
      "asset_served",
      {
        skill_path: skill.name,
        file: checked.path,
        asset_type: type,
        is_inherited: resolvedFrom !== undefined,
        size_bytes: read.size,
      },
      ctx.session.address,
    );
    const data = {
      skill_path: skill.name,
      ...(resolvedFrom === undefined ? {} : { resolved_from: resolvedFrom }),
      file: checked.path,
      ...(read.binary ? { content_base64: read.base64 } : { content: read.text }),
      size_bytes: read.size,
      type,
      ...(read.binary ? { mime_type: read.mimeType } : {}),
      ...(ctx.session.remote ? { uri: skillPlace(skill, ctx).uri(checked.path) } : {}),
    };
    // An image a model can view comes as one too. The text stays the whole answer as JSON, base64 included: a
    // client of the tree tools parses it for `content_base64`.
    if (read.binary && read.image) return imageResult(data, read, JSON.stringify(data));
    return structuredResult(data);
  }),
});
