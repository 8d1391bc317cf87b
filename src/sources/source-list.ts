import { basename, dirname, join, resolve, sep } from "node:path";
import { isInside } from "../util/safe-path.ts";

/** Where a source sits in the precedence table. */
export type Location = "explicit" | "project" | "global" | "remote";

/** A folder that holds skills, with its label and place in the precedence order. */
export interface Source {
  /**
   * Unique label: an explicit folder's name (explicitLabels), project-skills, project, agent-project, global,
   * agent-global, claude-project, claude-global, hub, a repository's name, or plugin:<name>.
   */
  label: string;
  dir: string;
  location: Location;
  /** Prefix of the qualified names of its skills (`<qualifier>:<skill>`). Default: the label. */
  qualifier?: string;
  /**
   * The project root, for the project's own folders inside it: the source and the links followed in it
   * must stay inside (WalkLimits.within). Unset for every other source.
   */
  within?: string;
}

export interface SourceListInput {
  /** Explicit folders: --skills-dir flags, then SKILLS_DIR, then the config file's `sources.dirs`. */
  dirs: readonly string[];
  /** Use only the explicit folders (config `sources.only_dirs`). */
  onlyDirs?: boolean;
  projectDir: string | null;
  homeDir: string;
  /** SkillHub's home (~/.skillhub). */
  hubHome: string;
  /**
   * The sk profile's skills root under the project (`--root`, default `skills` in the sk profile): read right
   * after the explicit folders, even with `onlyDirs`. Relative to the project root; absolute as it is.
   */
  projectSkills?: string;
  /** Folders a project's skillhub.yaml adds (absolute): the project's own, read after the explicit ones. */
  projectDirs?: readonly string[];
  /** The project root whose skillhub.yaml named `projectDirs` (the one known at start). Default: projectDir. */
  projectDirsRoot?: string | null;
  /** Synced repositories, after the local folders. */
  repos?: readonly { label: string; dir: string }[];
  /** Installed Claude Code plugins' skill folders (plugin-sources.ts): last, below every folder and repository. */
  plugins?: readonly Source[];
}

/**
 * The labels of the fixed sources, in precedence order: the one list (a repository
 * or a plugin of such a name takes another label, so qualified names stay unique).
 */
export const SOURCE_LABELS = [
  "project-skills",
  "project",
  "agent-project",
  "global",
  "agent-global",
  "claude-project",
  "claude-global",
  "hub",
] as const;

const FIXED_LABELS: ReadonlySet<string> = new Set(SOURCE_LABELS);

/** The label of a Claude Code plugin's source is this prefix and the plugin's name (plugin-sources.ts). */
export const PLUGIN_LABEL_PREFIX = "plugin:";

/**
 * Whether a source's content is someone else's: a synced repository or a plugin. Security: links in
 * such a source may not leave its folder (the walker, and every read of its skills' files), so a
 * repository or plugin cannot serve the operator's other skills or files under its own name.
 */
export function linksConfined(source: { location: Location; label: string }): boolean {
  return source.location === "remote" || source.label.startsWith(PLUGIN_LABEL_PREFIX);
}

/**
 * Whether a skill of a source (its `location` and source folder `root`) is the project's: in a project
 * folder, or in an explicit folder inside the project root (`projectDir`).
 */
export function isProjects(skill: { location: Location; root: string }, projectDir: string | null): boolean {
  if (skill.location === "project") return true;
  return (
    skill.location === "explicit" &&
    projectDir !== null &&
    (skill.root === projectDir || skill.root.startsWith(`${projectDir}${sep}`))
  );
}

/** Whether a name is taken by a fixed source. */
export function isReservedLabel(name: string): boolean {
  return FIXED_LABELS.has(name);
}

/** A folder name as a label: lower case, `[a-z0-9._-]`, no leading dot or hyphen; "" when nothing is left. */
function labelOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[.-]+|-+$/g, "")
    .slice(0, 64);
}

/**
 * Labels of the explicit folders (`--skills-dir`, SKILLS_DIR), one per folder, in the order given: the
 * folder's own name (`~/work/skills` → `skills`), so that a qualified name (`skills:pdf`) and a shadowed
 * skill's URI do not change when the folders are given in another order or one is added. Folders whose
 * names meet (two `skills` folders), or that meet a fixed label or one in `taken` (a repository's, a
 * plugin's), take their parent's name in front (`work-skills`), then a number in path order. Pure.
 */
export function explicitLabels(dirs: readonly string[], taken: ReadonlySet<string> = new Set()): string[] {
  const own = dirs.map((dir) => labelOf(basename(dir)) || "folder");
  const count = new Map<string, number>();
  for (const label of own) count.set(label, (count.get(label) ?? 0) + 1);
  const clash = (label: string) => FIXED_LABELS.has(label) || taken.has(label);
  const wanted = own.map((label, i) => {
    if ((count.get(label) ?? 0) === 1 && !clash(label)) return label;
    const parent = labelOf(basename(dirname(dirs[i] as string)));
    return parent ? `${parent}-${label}` : label;
  });
  // Still meeting (same parent name too): numbered in path order, which the order given does not change.
  const labels = [...wanted];
  const byPath = [...dirs.keys()].sort((a, b) => ((dirs[a] as string) < (dirs[b] as string) ? -1 : 1));
  const used = new Set<string>();
  for (const i of byPath) {
    let label = wanted[i] as string;
    for (let n = 2; used.has(label) || clash(label); n++) label = `${wanted[i]}-${n}`;
    used.add(label);
    labels[i] = label;
  }
  return labels;
}

/** The sources in precedence order; the first one holding a name wins. */
export function buildSourceList(input: SourceListInput): Source[] {
  const dirs = input.dirs.map((dir) => resolve(dir));
  // A repository's or plugin's qualifier is not an explicit folder's label (qualified names stay unique).
  const taken = new Set([
    ...(input.repos ?? []).map((r) => r.label),
    ...(input.plugins ?? []).flatMap((p) => [p.label, p.qualifier ?? p.label]),
  ]);
  // A folder given twice is one source (see the end), with one label.
  const unique = [...new Set(dirs)];
  // The project's own folders (skillhub.yaml) are labelled by their names first, whatever folder a command is
  // given once: the skills' qualified names and the project's lock entries stay the same. An explicit folder
  // whose name meets one of theirs takes its parent's name in front; one that is a project folder keeps its
  // project label (one folder, one label), as the explicit source it is.
  const named = input.onlyDirs ? [] : [...new Set((input.projectDirs ?? []).map((dir) => resolve(dir)))];
  const projectLabels = new Map(explicitLabels(named, taken).map((label, i) => [named[i] as string, label]));
  const others = unique.filter((dir) => !projectLabels.has(dir));
  const otherLabels = explicitLabels(others, new Set([...taken, ...projectLabels.values()]));
  const labelOfDir = new Map([...projectLabels, ...others.map((dir, i) => [dir, otherLabels[i] as string] as const)]);
  const list: Source[] = unique.map((dir) => ({ label: labelOfDir.get(dir) as string, dir, location: "explicit" }));
  const projectDirs = named.filter((dir) => !unique.includes(dir));
  const p = input.projectDir;
  /** A folder of the project: the project's own, confined to it. */
  const own = (label: string, dir: string, root: string | null | undefined = p): Source => ({
    label,
    dir,
    location: "project",
    ...withinProject(dir, root, input.homeDir),
  });
  if (input.projectSkills !== undefined && p) list.push(own("project-skills", resolve(p, input.projectSkills)));
  if (!input.onlyDirs) {
    const dirsRoot = input.projectDirsRoot === undefined ? p : input.projectDirsRoot;
    for (const dir of projectDirs) list.push(own(projectLabels.get(dir) as string, dir, dirsRoot));
    const h = input.homeDir;
    if (p) list.push(own("project", join(p, ".agents", "skills")));
    if (p) list.push(own("agent-project", join(p, ".agent", "skills")));
    list.push({ label: "global", dir: join(h, ".agents", "skills"), location: "global" });
    list.push({ label: "agent-global", dir: join(h, ".agent", "skills"), location: "global" });
    if (p) list.push(own("claude-project", join(p, ".claude", "skills")));
    list.push({ label: "claude-global", dir: join(h, ".claude", "skills"), location: "global" });
    list.push({ label: "hub", dir: join(input.hubHome, "skills"), location: "global" });
  }
  for (const repo of input.repos ?? []) list.push({ label: repo.label, dir: repo.dir, location: "remote" });
  if (!input.onlyDirs) {
    // A plugin named like a repository (or any source before it) is qualified `plugin:<name>`: its skills
    // must never pass for that source's, nor share their qualified names.
    const used = new Set(list.map((source) => source.label));
    for (const plugin of input.plugins ?? [])
      list.push(used.has(plugin.qualifier ?? plugin.label) ? { ...plugin, qualifier: plugin.label } : plugin);
  }
  // The same folder twice (SKILLS_DIR=~/.claude/skills) is scanned once, at its first place.
  const seen = new Set<string>();
  return list.filter((s) => {
    if (seen.has(s.dir)) return false;
    seen.add(s.dir);
    return true;
  });
}

/**
 * Security: a folder of the project is confined to the project (`within`), whatever links it holds: a project
 * may be a repository the user merely cloned, and its `.agents/skills -> /` must not serve the whole disk as
 * the project's skills. A folder outside the project's root as written (an absolute `--root`, a `project_dirs`
 * of the user's own config file) is the user's choice and is not; nor are the folders of a project that is
 * the home folder (`--project ~`), which are the user's own `~/.claude/skills` and `~/.agents/skills`. Pure.
 */
function withinProject(dir: string, root: string | null | undefined, home: string): { within?: string } {
  if (!root) return {};
  const base = resolve(root);
  return base !== resolve(home) && isInside(base, resolve(dir)) ? { within: base } : {};
}
