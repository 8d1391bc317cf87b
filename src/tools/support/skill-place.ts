import type { Catalog } from "../../catalog/catalog.ts";
import type { Skill } from "../../skills/skill.ts";
import { isSkillUri, pathUnder, skillUris, uriKey } from "../../skills/skill-uri.ts";
import type { ToolContext } from "../definition.ts";
import { errorResult } from "../results.ts";

/**
 * How one client names a skill's folder and files. A local client (stdio)
 * shares the server's disk and gets its paths; a remote one (HTTP) gets the
 * skill:// URIs the skills extension serves, since the server's paths mean
 * nothing on its machine (and are not its business).
 */
export interface SkillPlace {
  /** The name that reaches this very skill: qualified (`source:name`) when another skill of its name is served. */
  name: string;
  /** The folder: an absolute path (local) or `skill://<name>` (remote). */
  base: string;
  /** A file under the folder (`/`-separated `rel`), named the same way. */
  file(rel: string): string;
  /** The skill's skill:// URIs, whatever the client: `uri(rel)` names a file, `uri("")` the folder. */
  uri(rel: string): string;
  remote: boolean;
}

/** Whether `skill` is not the one its name serves (then it is reached by its qualified name and its URI carries its source). */
export function isShadowed(catalog: Catalog, skill: Skill): boolean {
  return catalog.get(skill.name)?.id !== skill.id;
}

/** Where `skill` is, as the client of `ctx` names it. */
export function skillPlace(skill: Skill, ctx: Pick<ToolContext, "deps" | "session">): SkillPlace {
  const shadowed = isShadowed(ctx.deps.store.catalog, skill);
  const uris = skillUris(skill, shadowed);
  const remote = ctx.session.remote;
  const local = (rel: string) => (rel === "" ? skill.dir : `${skill.dir}/${rel}`);
  return {
    name: shadowed ? skill.id : skill.name,
    base: remote ? uris.dir("") : skill.dir,
    file: remote ? uris.file : local,
    uri: uris.file,
    remote,
  };
}

/**
 * One sentence on how a remote client fetches a skill's files: get_asset for a tree node's declared
 * files when this session offers it, else read_skill_file when offered (it reads every served skill,
 * and takes a file's URI as its path), else resources/read on the file's URI, which serves every served
 * skill's files (the skills extension's, and the others' as read_skill_file would).
 * `example` is a file of the skill to show the call with; `download`, the sentence with the command that
 * downloads the whole folder (skill-archive.ts), when this client has one, says how to run a script.
 */
export function fetchAdvice(
  skill: Skill,
  place: SkillPlace,
  ctx: ToolContext,
  example = "<path>",
  download?: string,
): string {
  const uri = shownUri(place, example);
  const readFile = ctx.hasTool?.("read_skill_file") ?? false;
  const way =
    skill.kind === "tree-node" && ctx.hasTool?.("get_asset")
      ? `get_asset (skill_path "${place.name}", file "${example}"), or by its URI ${uri} with ${readFile ? "read_skill_file or " : ""}resources/read`
      : readFile
        ? `read_skill_file (skill_name "${place.name}", file_path "${example}"), whose file_path takes its URI ${uri} too`
        : `resources/read ${uri}`;
  return `This server runs on another machine: paths in this skill are relative to ${place.base}, not to a folder on your disk. Fetch a file with ${way}. ${download ?? "To run a script, first save it and the files it uses into a new local folder under the same relative paths, then run it there."}`;
}

/** The URI of `rel` under the skill's folder as an answer shows it: a placeholder `<path>` kept readable. */
export function shownUri(place: SkillPlace, rel: string): string {
  return place.uri(rel).replace("%3Cpath%3E", "<path>");
}

/**
 * The path under `skill`'s folder a client names a file by: its relative path as given, or the part of
 * its skill:// URI under the skill's (remote clients are given URIs); undefined for a URI under another.
 */
export function relativeOf(
  skill: Skill,
  asked: string,
  ctx: Pick<ToolContext, "deps" | "session">,
): string | undefined {
  return isSkillUri(asked) ? pathUnder(skillPlace(skill, ctx).uri(""), asked) : asked;
}

/** Whether `asked` is a tree node's own file by its URI (`skill://ops/release.md` of node `ops/release`). */
export function isOwnFileUri(skill: Skill, asked: string, ctx: Pick<ToolContext, "deps" | "session">): boolean {
  return (
    skill.kind === "tree-node" && isSkillUri(asked) && uriKey(asked) === uriKey(`${skillPlace(skill, ctx).uri("")}.md`)
  );
}

/** The answer to a URI that names no file of `skill` (relativeOf gave undefined). */
export function notUnder(skill: Skill, asked: string, ctx: Pick<ToolContext, "deps" | "session">, field: string) {
  const place = skillPlace(skill, ctx);
  if (isOwnFileUri(skill, asked, ctx))
    return errorResult(
      "PATH_OUTSIDE_SKILL",
      `'${asked}' is the own file of tree node '${place.name}', not a file of its folder: load_skill('${place.name}') serves its instructions, and read_skill_file and resources/read the file.`,
      { skill: skill.name, [field]: asked },
    );
  return errorResult(
    "PATH_OUTSIDE_SKILL",
    `'${asked}' is not a file of skill '${place.name}' (its files are under ${place.uri("")}/). Give a path relative to the skill's folder, or a URI under it.`,
    { skill: skill.name, [field]: asked },
  );
}
