import type { Catalog } from "../../catalog/catalog.ts";
import type { Skill } from "../../skills/skill.ts";
import { skillUris } from "../../skills/skill-uri.ts";
import type { ToolContext } from "../definition.ts";

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
 * `example` is a file of the skill to show the call with.
 */
export function fetchAdvice(skill: Skill, place: SkillPlace, ctx: ToolContext, example = "<path>"): string {
  const way =
    skill.kind === "tree-node" && ctx.hasTool?.("get_asset")
      ? `get_asset (skill_path "${place.name}", file "${example}")`
      : ctx.hasTool?.("read_skill_file")
        ? `read_skill_file (skill_name "${place.name}", file_path "${example}")`
        : `resources/read ${place.uri(example)}`;
  return `This server runs on another machine: paths in this skill are relative to ${place.base}, not to a folder on your disk. Fetch a file with ${way}. To run a script, first save it and the files it uses into a new local folder under the same relative paths, then run it there.`;
}
