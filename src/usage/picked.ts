import type { Catalog } from "../catalog/catalog.ts";
import { isEnabled, type SkillFilter } from "../catalog/filters.ts";
import type { Skill } from "../skills/skill.ts";
import { type ProjectTerms, projectTerms } from "./project-signals.ts";
import { pickSkills } from "./skill-pick.ts";
import type { UsageStore } from "./usage-store.ts";

/** What the pick of a running server reads: its catalog, filter, usage and project root. */
export interface PickDeps {
  readonly store: { readonly catalog: Catalog };
  readonly filter: SkillFilter;
  readonly usage: UsageStore;
  readonly projectRoot: { dir: string | null };
}

interface Cached {
  catalog: Catalog;
  usage: number;
  projectDir: string | null;
  picked: Skill[];
}

const picks = new WeakMap<PickDeps, Cached>();
const termsByDir = new Map<string, ProjectTerms>();

/**
 * The enabled skills of the current catalog in pick order (skill-pick.ts), for this server's project
 * and usage. Made again only when the catalog, a usage count or the project root changed: at 10,000
 * skills a pick scores every description.
 */
export function pickedSkills(deps: PickDeps): readonly Skill[] {
  const catalog = deps.store.catalog;
  const projectDir = deps.projectRoot.dir;
  const cached = picks.get(deps);
  if (cached && cached.catalog === catalog && cached.usage === deps.usage.version && cached.projectDir === projectDir)
    return cached.picked;
  const picked = pickSkills(
    catalog.skills.filter((s) => isEnabled(s, deps.filter)),
    { usage: deps.usage, projectDir, terms: termsOf(projectDir) },
  );
  picks.set(deps, { catalog, usage: deps.usage.version, projectDir, picked });
  return picked;
}

/** The project's words, read once per project root and process (a few folders and manifests). */
export function termsOf(projectDir: string | null): ProjectTerms | undefined {
  if (!projectDir) return undefined;
  let terms = termsByDir.get(projectDir);
  if (!terms) {
    terms = projectTerms(projectDir);
    termsByDir.set(projectDir, terms);
  }
  return terms;
}
