import type { Catalog } from "../catalog/catalog.ts";
import { isEnabled, type SkillFilter } from "../catalog/filters.ts";
import type { Skill } from "../skills/skill.ts";
import { type ProjectTerms, projectTerms } from "./project-signals.ts";
import { type StaticOrder, staticOrder, withUsage } from "./skill-pick.ts";
import type { SkillLoads } from "./usage-store.ts";

/** What the pick of a running server reads: its catalog, filter and project root. */
export interface PickDeps {
  readonly store: { readonly catalog: Catalog };
  readonly filter: SkillFilter;
  readonly projectRoot: { dir: string | null };
}

interface Ordered {
  catalog: Catalog;
  projectDir: string | null;
  order: StaticOrder<Skill>;
}

interface Picked {
  order: StaticOrder<Skill>;
  version: number;
  picked: Skill[];
}

const orders = new WeakMap<PickDeps, Ordered>();
const picks = new WeakMap<SkillLoads, Picked>();
const termsByDir = new Map<string, ProjectTerms>();

/**
 * The enabled skills of the current catalog in pick order (skill-pick.ts), for this server's project
 * and the loads `usage` counts (the hub's persisted counts over stdio, a session's own over HTTP). The
 * order without usage is made again only when the catalog or the project root changes (at 10,000 skills
 * it scores every description), and shared by every client; a load applies usage to it in one pass.
 */
export function pickedSkills(deps: PickDeps, usage: SkillLoads): readonly Skill[] {
  const catalog = deps.store.catalog;
  const projectDir = deps.projectRoot.dir;
  let ordered = orders.get(deps);
  if (!ordered || ordered.catalog !== catalog || ordered.projectDir !== projectDir) {
    const enabled = catalog.skills.filter((s) => isEnabled(s, deps.filter));
    ordered = { catalog, projectDir, order: staticOrder(enabled, { projectDir, terms: termsOf(projectDir) }) };
    orders.set(deps, ordered);
  }
  let cached = picks.get(usage);
  if (!cached || cached.order !== ordered.order || cached.version !== usage.version) {
    cached = { order: ordered.order, version: usage.version, picked: withUsage(ordered.order, usage) };
    picks.set(usage, cached);
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
