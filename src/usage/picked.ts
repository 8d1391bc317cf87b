import type { Catalog } from "../catalog/catalog.ts";
import { isEnabled, type SkillFilter } from "../catalog/filters.ts";
import type { Skill } from "../skills/skill.ts";
import { type ProjectTerms, projectTerms } from "./project-signals.ts";
import { type StaticOrder, staticOrder, withUsage } from "./skill-pick.ts";
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
  projectDir: string | null;
  order: StaticOrder<Skill>;
  usage: number;
  picked: Skill[];
}

const picks = new WeakMap<PickDeps, Cached>();
const termsByDir = new Map<string, ProjectTerms>();

/**
 * The enabled skills of the current catalog in pick order (skill-pick.ts), for this server's project
 * and usage. The order without usage is made again only when the catalog or the project root changes
 * (at 10,000 skills it scores every description); a load applies usage to it in one pass.
 */
export function pickedSkills(deps: PickDeps): readonly Skill[] {
  const catalog = deps.store.catalog;
  const projectDir = deps.projectRoot.dir;
  let cached = picks.get(deps);
  if (!cached || cached.catalog !== catalog || cached.projectDir !== projectDir) {
    const enabled = catalog.skills.filter((s) => isEnabled(s, deps.filter));
    const order = staticOrder(enabled, { projectDir, terms: termsOf(projectDir) });
    cached = { catalog, projectDir, order, usage: -1, picked: [] };
    picks.set(deps, cached);
  }
  if (cached.usage !== deps.usage.version) {
    cached.picked = withUsage(cached.order, deps.usage);
    cached.usage = deps.usage.version;
  }
  return cached.picked;
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
