import { realpathSync } from "node:fs";
import { sep } from "node:path";
import type { Catalog } from "../catalog/catalog.ts";
import { skillUris } from "../skills/skill-uri.ts";
import type { Hub } from "./hub.ts";

/** How a remote client is told about a path of this server: a skill's folder by its URI, any other folder by a name. */
export interface ServerPaths {
  /** Agent Skill folders (real paths too) → `skill://…`. */
  skills: Map<string, string>;
  /** The longest key of `skills`: how far past a folder a skill's folder can reach. */
  longest: number;
  /** Other folders of this server, longest first → a name in angle brackets. */
  folders: Array<[path: string, name: string]>;
  /** What separates a path's folders here: `\\` on Windows, else `/`. */
  separator: "/" | "\\";
}

const perCatalog = new WeakMap<Catalog, { skills: Map<string, string>; longest: number }>();

/**
 * The paths of this server a remote client must never be told, and what it is
 * told instead: each Agent Skill's folder becomes its skill:// URI (so a path
 * under it becomes the file's URI, the one the skills extension serves); the
 * skills folders (by source label), the project root, SkillHub's home, the
 * user's home and the working folder become names.
 */
export function serverPaths(hub: Hub, homeDir = userHome()): ServerPaths {
  const catalog = hub.catalog;
  let known = perCatalog.get(catalog);
  if (!known) {
    const skills = new Map<string, string>();
    const add = (dir: string, uri: string) => {
      skills.set(dir, uri);
      const real = realOf(dir);
      if (real !== dir) skills.set(real, uri);
    };
    for (const skill of catalog.skills)
      if (skill.kind === "agent-skill") add(skill.dir, skillUris(skill, false).dir(""));
    for (const { skill } of catalog.reachableShadowed())
      if (skill.kind === "agent-skill") add(skill.dir, skillUris(skill, true).dir(""));
    known = { skills, longest: Math.max(0, ...[...skills.keys()].map((dir) => dir.length)) };
    perCatalog.set(catalog, known);
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
    // A root folder ("/", "C:\\") would rename every path: such a setting names nothing worth hiding; nor does "".
    .filter(([path]) => !ROOT.test(path))
    .sort((a, b) => b[0].length - a[0].length);
  return { ...known, folders, separator: sep === "\\" ? "\\" : "/" };
}

/** The user's home from the environment (node:os stays out of the stdio server's start-up imports). */
const ROOT = /^(?:[/\\]?|[A-Za-z]:[/\\]?)$/;

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
 * Text and structured content alike; the result's shape is kept: a text that is
 * the JSON of the structured content is written again from the swept content,
 * so its escapes stay whole. With `fileBytes` (read_skill_file, get_asset), a
 * `content` field is the file's own bytes and is served as it is, as
 * resources/read serves them: its size and digest must stay the file's.
 */
export function hideServerPaths<T>(result: T, paths: ServerPaths, fileBytes = false): T {
  const json = JSON.stringify(result);
  // As the JSON writes them: a path holding a backslash or a quote is escaped there. On Windows a path has
  // many spellings (case, either slash, doubled backslashes): they are compared with every run of slashes
  // taken for one.
  const loose = paths.separator === "\\" ? (text: string) => text.toLowerCase().replace(/[\\/]+/g, "\\") : undefined;
  const looseJson = loose?.(json);
  const written = (path: string) =>
    loose && looseJson !== undefined
      ? looseJson.includes(loose(path))
      : json.includes(JSON.stringify(path).slice(1, -1));
  if (!paths.folders.some(([path]) => written(path))) return result;
  const swept = sweep(result, paths, fileBytes) as T;
  const before = result as { content?: unknown; structuredContent?: unknown };
  const after = swept as { content?: unknown; structuredContent?: unknown };
  if (before.structuredContent === undefined || !Array.isArray(before.content) || !Array.isArray(after.content))
    return swept;
  const pretty = JSON.stringify(before.structuredContent, null, 2);
  const compact = JSON.stringify(before.structuredContent);
  before.content.forEach((item: { text?: unknown }, i) => {
    const text = item?.text;
    if (text !== pretty && text !== compact) return;
    (after.content as { text?: string }[])[i] = {
      ...(after.content as object[])[i],
      text: JSON.stringify(after.structuredContent, null, text === pretty ? 2 : undefined),
    };
  });
  return swept;
}

function sweep(value: unknown, paths: ServerPaths, fileBytes: boolean, key?: string): unknown {
  if (typeof value === "string") return fileBytes && key === "content" ? value : hide(value, paths);
  if (Array.isArray(value)) return value.map((item) => sweep(item, paths, fileBytes));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sweep(v, paths, fileBytes, k)]));
}

/**
 * Characters that end a path in running text, past the skill folder it is in (a space may be in a folder's
 * name): `=` (`HOME=/x`), and `:` between the paths of a list (`PATH=/a:/b`); a backslash too, but where it
 * separates folders (Windows, whose lists take `;` and whose drives take `:`).
 */
const PATH_END = { "/": /[\s"'`<>()[\]{},;:=|\\]/, "\\": /[\s"'`<>()[\]{},;=|]/ };

/**
 * How paths are compared here: as they are, or on Windows without regard to case and with `/` taken for
 * `\\` (`c:/hub/skills` is `C:\\hub\\skills`). Folding keeps every character where it was, so what is found
 * in the folded text is cut from the text itself (a letter whose lower case is longer keeps its case).
 */
interface Comparison {
  fold: (text: string) => string;
  skills: ReadonlyMap<string, string>;
}

const foldedSkills = new WeakMap<ReadonlyMap<string, string>, Map<string, string>>();

/** Lower case and `\\` for `/`, every character where it was. */
function foldWindows(text: string): string {
  let lower = text.toLowerCase();
  if (lower.length !== text.length) {
    lower = "";
    for (const char of text) {
      const folded = char.toLowerCase();
      lower += folded.length === char.length ? folded : char;
    }
  }
  return lower.replaceAll("/", "\\");
}

function comparison(paths: ServerPaths): Comparison {
  if (paths.separator === "/") return { fold: (text) => text, skills: paths.skills };
  const fold = foldWindows;
  let skills = foldedSkills.get(paths.skills);
  if (!skills) {
    skills = new Map([...paths.skills].map(([dir, uri]) => [fold(dir), uri]));
    foldedSkills.set(paths.skills, skills);
  }
  return { fold, skills };
}

function hide(value: string, paths: ServerPaths): string {
  let out = value;
  const end = PATH_END[paths.separator];
  const compared = comparison(paths);
  // Windows: a path written with doubled backslashes (a program's quoted or escaped output) too; its
  // folder is named, what follows kept.
  const spellings = paths.folders.flatMap(([folder, name]): Array<[string, string]> => {
    const key = compared.fold(folder);
    return paths.separator === "/"
      ? [[key, name]]
      : [
          [key, name],
          [key.replaceAll("\\", "\\\\"), name],
        ];
  });
  for (const [key, name] of spellings) {
    const text = compared.fold(out);
    if (!text.includes(key)) continue;
    let rebuilt = "";
    let from = 0;
    for (let at = text.indexOf(key); at >= 0; at = text.indexOf(key, from)) {
      let stop = skillFolderEnd(text, at, at + key.length, paths, compared.skills);
      while (stop < text.length && !end.test(text[stop] as string)) stop++;
      rebuilt += out.slice(from, at) + named(out.slice(at, stop), text.slice(at, stop), key, name, paths, compared);
      from = stop;
    }
    out = rebuilt + out.slice(from);
  }
  return out;
}

/** Characters no skill folder's path holds here: where the search for one ends. */
const FOLDER_END = { "/": /[\n\r\t"'`<>|\\]/, "\\": /[\n\r\t"'`<>|]/ };

/**
 * Past the longest skill folder that the path at `at` names, spaces and all (else `end`). Looks no further
 * than the longest skill folder reaches, so a line of many paths costs as many short scans.
 */
function skillFolderEnd(
  text: string,
  at: number,
  end: number,
  paths: ServerPaths,
  skills: ReadonlyMap<string, string>,
): number {
  const limit = Math.min(text.length, at + paths.longest);
  const { separator } = paths;
  let found = end;
  for (let i = end + 1; i <= limit; i++) {
    if (FOLDER_END[separator].test(text[i - 1] as string)) break;
    const next = text[i];
    const ends = next === undefined || next === separator || PATH_END[separator].test(next);
    if (ends && skills.has(text.slice(at, i))) found = i;
  }
  return found;
}

/**
 * `path` (under `folder`; `compared` is it as compared here) as a skill:// URI when a skill's folder holds
 * it, else with `folder` named.
 */
function named(
  path: string,
  compared: string,
  folder: string,
  name: string,
  paths: ServerPaths,
  comparison: Comparison,
): string {
  const { separator } = paths;
  const trimmed = compared.replace(/[.:]+$/, "");
  for (let dir = trimmed; dir.length >= folder.length; dir = dir.slice(0, Math.max(0, dir.lastIndexOf(separator)))) {
    const uri = comparison.skills.get(dir);
    if (uri !== undefined)
      return uri + encodeRest(path.slice(dir.length, trimmed.length), separator) + path.slice(trimmed.length);
    if (!dir.includes(separator)) break;
  }
  return name + path.slice(folder.length);
}

/** The rest of a path past a skill's folder, as the rest of its URI: `/`-separated, each name encoded. */
function encodeRest(rest: string, separator: string): string {
  return rest
    .split(separator === "/" ? "/" : /[\\/]/)
    .map((s) => encodeURIComponent(s))
    .join("/");
}
