import { join, resolve } from "node:path";

/** Where a source sits in the precedence table (DESIGN §3). */
export type Location = "explicit" | "project" | "global" | "remote";

/** A folder that holds skills, with its label and place in the precedence order. */
export interface Source {
  /** Unique label: dir1.., project-skills, project, agent-project, global, agent-global, claude-project, claude-global, hub, or a repo name. */
  label: string;
  dir: string;
  location: Location;
  /** Prefix of the qualified names of its skills (`<qualifier>:<skill>`). Default: the label. */
  qualifier?: string;
}

export interface SourceListInput {
  /** Explicit folders: --skills-dir flags, then SKILLS_DIR. */
  dirs: readonly string[];
  /** Use only the explicit folders (config `sources.only_dirs`). */
  onlyDirs?: boolean;
  projectDir: string | null;
  homeDir: string;
  /** SkillHub's home (~/.skillhub). */
  hubHome: string;
  /**
   * Seed 001's skills root under the project (`--root`, default `skills` in the sk profile): read right
   * after the explicit folders, even with `onlyDirs`. Relative to the project root; absolute as it is.
   */
  projectSkills?: string;
  /** Folders a project's skillhub.yaml adds (absolute): the project's own, read after the explicit ones. */
  projectDirs?: readonly string[];
  /** Synced repositories (DESIGN §12), after the local folders. */
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

/** Whether a name is taken by a fixed source or a folder (`dir1`, `dir2`, …, `project-dir1`, …). */
export function isReservedLabel(name: string): boolean {
  return FIXED_LABELS.has(name) || /^(project-)?dir\d+$/.test(name);
}

/** The sources in precedence order (DESIGN §3); the first one holding a name wins. */
export function buildSourceList(input: SourceListInput): Source[] {
  const list: Source[] = input.dirs.map((dir, i) => ({
    label: `dir${i + 1}`,
    dir: resolve(dir),
    location: "explicit",
  }));
  if (input.projectSkills !== undefined && input.projectDir)
    list.push({ label: "project-skills", dir: resolve(input.projectDir, input.projectSkills), location: "project" });
  if (!input.onlyDirs) {
    for (const [i, dir] of (input.projectDirs ?? []).entries())
      list.push({ label: `project-dir${i + 1}`, dir: resolve(dir), location: "project" });
    const p = input.projectDir;
    const h = input.homeDir;
    if (p) list.push({ label: "project", dir: join(p, ".agents", "skills"), location: "project" });
    if (p) list.push({ label: "agent-project", dir: join(p, ".agent", "skills"), location: "project" });
    list.push({ label: "global", dir: join(h, ".agents", "skills"), location: "global" });
    list.push({ label: "agent-global", dir: join(h, ".agent", "skills"), location: "global" });
    if (p) list.push({ label: "claude-project", dir: join(p, ".claude", "skills"), location: "project" });
    list.push({ label: "claude-global", dir: join(h, ".claude", "skills"), location: "global" });
    list.push({ label: "hub", dir: join(input.hubHome, "skills"), location: "global" });
  }
  for (const repo of input.repos ?? []) list.push({ label: repo.label, dir: repo.dir, location: "remote" });
  if (!input.onlyDirs) list.push(...(input.plugins ?? []));
  // The same folder twice (SKILLS_DIR=~/.claude/skills) is scanned once, at its first place.
  const seen = new Set<string>();
  return list.filter((s) => {
    if (seen.has(s.dir)) return false;
    seen.add(s.dir);
    return true;
  });
}
