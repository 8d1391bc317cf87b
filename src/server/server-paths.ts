import { realpathSync } from "node:fs";
import type { Catalog } from "../catalog/catalog.ts";
import { skillUris } from "../skills/skill-uri.ts";
import type { Hub } from "./hub.ts";

/** How a remote client is told about a path of this server: a skill's folder by its URI, any other folder by a name. */
export interface ServerPaths {
  /** Agent Skill folders (real paths too) → `skill://…`. */
  skills: Map<string, string>;
  /** Other folders of this server, longest first → a name in angle brackets. */
  folders: Array<[path: string, name: string]>;
}

const perCatalog = new WeakMap<Catalog, Map<string, string>>();

/**
 * The paths of this server a remote client must never be told, and what it is
 * told instead: each Agent Skill's folder becomes its skill:// URI (so a path
 * under it becomes the file's URI, the one the skills extension serves); the
 * skills folders (by source label), the project root, SkillHub's home, the
 * user's home and the working folder become names.
 */
export function serverPaths(hub: Hub, homeDir = userHome()): ServerPaths {
  const catalog = hub.catalog;
  let skills = perCatalog.get(catalog);
  if (!skills) {
    skills = new Map();
    const add = (dir: string, uri: string) => {
      skills?.set(dir, uri);
      const real = realOf(dir);
      if (real !== dir) skills?.set(real, uri);
    };
    for (const skill of catalog.skills)
      if (skill.kind === "agent-skill") add(skill.dir, skillUris(skill, false).dir(""));
    for (const { skill } of catalog.shadowed)
      if (skill.kind === "agent-skill") add(skill.dir, skillUris(skill, true).dir(""));
    perCatalog.set(catalog, skills);
  }
  const named: Array<[string, string]> = catalog.sources.map((s) => [s.dir, `<skills folder '${s.label}'>`]);
  if (hub.projectRoot.dir) named.push([hub.projectRoot.dir, "<project>"]);
  named.push([hub.config.home, "<skillhub home>"], [homeDir, "<home>"], [hub.exec.cwd, "<server folder>"]);
  const folders = named
    .flatMap(([path, name]): Array<[string, string]> => {
      const real = realOf(path);
      return real === path
        ? [[path, name]]
        : [
            [path, name],
            [real, name],
          ];
    })
    // A root folder ("/") would rename every path: such a setting names nothing worth hiding; nor does "".
    .filter(([path]) => path.length > 1)
    .sort((a, b) => b[0].length - a[0].length);
  return { skills, folders };
}

/** The user's home from the environment (node:os stays out of the stdio server's start-up imports). */
function userHome(): string {
  return process.env.HOME ?? process.env.USERPROFILE ?? "";
}

function realOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Security: a tool or prompt result for a client on another machine, with every
 * path of this server replaced. The core tools name a skill's files by skill://
 * URI themselves; this is the one place that makes it true of every answer (a
 * listing's file field, a script's output, a message from a lower layer).
 * Text and structured content alike; the result's shape is kept. A file's own
 * bytes (a `content` field: read_skill_file, get_asset) are served as they are,
 * as resources/read serves them: their size and digest must stay the file's.
 */
export function hideServerPaths<T>(result: T, paths: ServerPaths): T {
  const json = JSON.stringify(result);
  // As the JSON writes them: a path holding a backslash or a quote is escaped there.
  if (!paths.folders.some(([path]) => json.includes(JSON.stringify(path).slice(1, -1)))) return result;
  return sweep(result, paths) as T;
}

function sweep(value: unknown, paths: ServerPaths, key?: string): unknown {
  if (typeof value === "string") return key === "content" ? value : hideInText(value, paths);
  if (Array.isArray(value)) return value.map((item) => sweep(item, paths));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sweep(v, paths, k)]));
}

/** A JSON text (a structured result's, the tree tools') is swept value by value and written again in its form. */
function hideInText(text: string, paths: ServerPaths): string {
  if (text.startsWith("{") || text.startsWith("[")) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return hide(text, paths);
    }
    return JSON.stringify(sweep(data, paths), null, /^[{[]\n/.test(text) ? 2 : undefined);
  }
  return hide(text, paths);
}

/** Characters that end a path in running text, past the skill folder it is in (a space may be in a folder's name). */
const PATH_END = /[\s"'`<>()[\]{},;|]/;

function hide(value: string, paths: ServerPaths): string {
  let out = value;
  for (const [folder, name] of paths.folders) {
    if (!out.includes(folder)) continue;
    let rebuilt = "";
    let from = 0;
    for (let at = out.indexOf(folder); at >= 0; at = out.indexOf(folder, from)) {
      let end = skillFolderEnd(out, at + folder.length, at, paths.skills);
      while (end < out.length && !PATH_END.test(out[end] as string)) end++;
      rebuilt += out.slice(from, at) + named(out.slice(at, end), folder, name, paths.skills);
      from = end;
    }
    out = rebuilt + out.slice(from);
  }
  return out;
}

/** Past the longest skill folder that the path at `at` names, spaces and all (else `end`). */
function skillFolderEnd(text: string, end: number, at: number, skills: Map<string, string>): number {
  const rest = text.slice(end).search(/[\n\r\t"'`<>|]/);
  const stop = rest < 0 ? text.length : end + rest;
  let found = end;
  for (let slash = text.indexOf("/", end + 1); ; slash = text.indexOf("/", slash + 1)) {
    const cut = slash < 0 || slash > stop ? stop : slash;
    if (skills.has(text.slice(at, cut))) found = cut;
    if (cut === stop) return found;
  }
}

/** `path` (under `folder`) as a skill:// URI when a skill's folder holds it, else with `folder` named. */
function named(path: string, folder: string, name: string, skills: Map<string, string>): string {
  const trimmed = path.replace(/[.:]+$/, "");
  for (let dir = trimmed; dir.length >= folder.length; dir = dir.slice(0, Math.max(0, dir.lastIndexOf("/")))) {
    const uri = skills.get(dir);
    if (uri !== undefined) return uri + encodeRest(trimmed.slice(dir.length)) + path.slice(trimmed.length);
    if (!dir.includes("/")) break;
  }
  return name + path.slice(folder.length);
}

function encodeRest(rest: string): string {
  return rest
    .split("/")
    .map((s) => encodeURIComponent(s))
    .join("/");
}
