import { readdirSync } from "node:fs";
import { join, sep } from "node:path";
import { localFile } from "../analytics/setup.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { runnerPrograms } from "../exec/runners.ts";
import { skillUris } from "../skills/skill-uri.ts";
import { oncePer } from "../util/once.ts";
import { realOr } from "../util/safe-path.ts";
import type { Hub } from "./hub.ts";
import { claimedFolders } from "./skills-extension/publication.ts";
import { nodeFileOwner, nodeFileUri } from "./skills-extension/uri-conflicts.ts";

/** How a remote client is told about a path of this server: a skill's folder by its URI, any other folder by a name. */
export interface ServerPaths {
  /** Agent Skill folders and tree nodes' resource folders (real paths too) → `skill://…`; a node's .md → `skill://<path>.md`. */
  skills: Map<string, string>;
  /** The longest key of `skills`: how far past a folder a skill's folder can reach. */
  longest: number;
  /** Other folders of this server, longest first → a name in angle brackets. */
  folders: Array<[path: string, name: string]>;
  /**
   * Folders of `folders` hidden also where they end a longer path (`/backup/home/ana`): the user's home,
   * whose path holds the user's name. Others are a path's only where they start it.
   */
  anywhere?: ReadonlySet<string>;
  /**
   * Folders of `folders` written without their leading `/` (`home/ana`, as tar and zip list what they
   * archive), found only as a word's start: the home's, by the same right as `anywhere`.
   */
  relative?: ReadonlySet<string>;
  /** What separates a path's folders here: `\\` on Windows, else `/`. */
  separator: "/" | "\\";
  /**
   * Any other path of this server, which no folder above names, is `<server path>` where the server or a
   * program speaks (hideOtherPaths); `roots`, the names in its root folder, one of which starts each of its
   * POSIX paths (`/api/v1` is none of them). Absent: only the folders above are hidden.
   */
  others?: { roots?: ReadonlySet<string> };
}

/**
 * The paths of this server a remote client must never be told, and what it is told instead (the sweep,
 * path-sweep/, tells it): each Agent Skill's folder and each tree node's resource folder becomes its skill://
 * URI (so a path under it becomes the file's URI, the one resources/read and read_skill_file serve); the
 * skills folders (by source label), the project root, SkillHub's home, the user's home, the working folder,
 * the analytics file and the programs scripts and commands start become names.
 */
export function serverPaths(hub: Hub, homeDir = userHome()): ServerPaths {
  const known = skillFolders(hub.catalog);
  const named: Array<[string, string]> = hub.catalog.sources.map((s) => [s.dir, `<skills folder '${s.label}'>`]);
  if (hub.projectRoot.dir) named.push([hub.projectRoot.dir, "<project>"]);
  named.push([hub.config.home, "<skillhub home>"], [hub.exec.cwd, "<server folder>"]);
  // Wherever the operator keeps it: the page's usage and status views name it.
  const analytics = localFile(hub.config);
  if (analytics) named.push([analytics, "<analytics file>"]);
  if (homeDir !== "") named.push([homeDir, "<home>"]);
  named.push(...startedPrograms(hub));
  const folders = [...named, ...known.reals]
    .flatMap(([path, name]): Array<[string, string]> => {
      const real = realOr(path);
      return real === path
        ? [[path, name]]
        : [
            [path, name],
            [real, name],
          ];
    })
    // A root folder ("/", "C:\\") would rename every path: such a setting names nothing worth hiding; nor does "".
    .filter(([path]) => !ROOT.test(path));
  // No home (HOME unset) is no folder: realOr("") would be the working folder.
  const anywhere = new Set(homeDir === "" ? [] : [homeDir, realOr(homeDir)].filter((path) => !ROOT.test(path)));
  // `home/ana`, not `ana` alone: a folder of one name, written relatively, is too likely a word.
  const relative = new Set(
    sep === "/" ? [...anywhere].filter((path) => /^\/[^/]+\/./.test(path)).map((path) => path.slice(1)) : [],
  );
  for (const path of relative) folders.push([path, "<home>"]);
  return {
    skills: known.skills,
    longest: known.longest,
    folders: folders.sort((a, b) => b[0].length - a[0].length),
    anywhere,
    relative,
    separator: sep === "\\" ? "\\" : "/",
    others: { roots: rootNames() },
  };
}

/**
 * The skill folders of a catalog (ServerPaths.skills and `longest`), made once per catalog, and `reals`: a
 * skill folder reached through a link, by its real path, which shows in what programs print (stack traces).
 */
const skillFolders = oncePer((catalog: Catalog) => {
  const skills = new Map<string, string>();
  const reals: Array<[string, string]> = [];
  const add = (dir: string, uri: string) => {
    // An Agent Skill's folder is its own, even where a tree node's resource folder would be.
    if (skills.has(dir)) return;
    skills.set(dir, uri);
    const real = realOr(dir);
    if (real === dir) return;
    skills.set(real, uri);
    if (uri !== NO_URI) reals.push([real, uri]);
  };
  const served = catalog.skills.map((skill) => ({ skill, shadowed: false }));
  const others = catalog.reachableShadowed().map(({ skill }) => ({ skill, shadowed: true }));
  const ordered = [...served, ...others].sort((a, b) => rank(a.skill) - rank(b.skill));
  for (const { skill, shadowed } of ordered) {
    const uri = skillUris(skill, shadowed).dir("");
    add(skill.dir, uri);
    // A node's own file, as resources/read serves it (readNodeFile), unless a skill's file has its URI.
    if (skill.kind === "tree-node")
      add(skill.file, nodeFileOwner(catalog, skill, shadowed) ? NO_URI : nodeFileUri(skill, shadowed));
    // A folder of the skill whose URIs a tree node or a shadowed skill holds is named, not given theirs.
    else for (const folder of claimedFolders(catalog, skill, shadowed) ?? []) add(join(skill.dir, folder), NO_URI);
  }
  return { skills, longest: Math.max(0, ...[...skills.keys()].map((dir) => dir.length)), reals };
});

/** The names in the root folder; undefined on Windows or where it cannot be read (any name may start a path). */
function rootNames(): ReadonlySet<string> | undefined {
  if (sep !== "/") return undefined;
  try {
    return new Set(readdirSync("/"));
  } catch {
    return undefined;
  }
}

/** The programs this server's scripts and commands may start, as `<program '…'>` (a failure to start one names it). */
function startedPrograms(hub: Hub): Array<[string, string]> {
  const { scripts, commands } = hub.config;
  if (!scripts.enabled && !commands.enabled) return [];
  return runnerPrograms(
    scripts.enabled ? scripts.runners : {},
    commands.enabled ? commands.allowed : [],
    hub.exec,
    hub.exec.env.PATH,
  );
}

/** In `ServerPaths.skills`: a path in a skill's folder that has no URI of its own (uri-conflicts.ts); it is named as any other. */
export const NO_URI = "";

/** Agent Skills first: a folder that is both a skill's and a tree node's resource folder is the skill's. */
function rank(skill: { kind: string }): number {
  return skill.kind === "agent-skill" ? 0 : 1;
}

/** A root folder: "", "/", "\\", "C:", "C:\\". */
const ROOT = /^(?:[/\\]?|[A-Za-z]:[/\\]?)$/;

/** The user's home from the environment (node:os stays out of the stdio server's start-up imports). */
function userHome(): string {
  return process.env.HOME ?? process.env.USERPROFILE ?? "";
}
