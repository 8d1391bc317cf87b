import type { Catalog } from "../catalog/catalog.ts";
import type { SkillFilter } from "../catalog/filters.ts";
import { passesFilter } from "../catalog/filters.ts";
import type { Skill } from "../skills/skill.ts";
import type { Diagnostic } from "../util/diagnostic.ts";

/** One row of the page's skill list. */
export interface SkillRow {
  id: string;
  name: string;
  description: string;
  kind: Skill["kind"];
  source: string;
  location: Skill["location"];
  dir: string;
  category?: string;
  tags: readonly string[];
  /** False when SKILLHUB_ENABLED_SKILLS / _CATEGORIES leave it out: listed, never served. */
  enabled: boolean;
  /** The skill that takes this one's name (this one is reachable by id only). */
  shadowedBy?: string;
  /** Skills this one hides. */
  shadows: string[];
  warnings: number;
  errors: number;
}

export interface SkillPage {
  /** Rows matching: served skills (`served`, as `skillhub list` counts them) and shadowed ones (`shadowed`). */
  total: number;
  served: number;
  shadowed: number;
  page: number;
  pages: number;
  perPage: number;
  items: SkillRow[];
}

export interface ListQuery {
  /** Words that must all appear in the name, description, source or tags (case-insensitive). */
  filter?: string;
  /** "served", "shadowed", "problems" (warnings or errors), "disabled", or all. */
  show?: string;
  /** 1-based. */
  page?: number;
  perPage?: number;
}

/** Rows of one catalog, built once per snapshot: a list request at 10,000 skills only filters and slices. */
interface ListIndex {
  rows: SkillRow[];
  haystacks: string[];
  byFile: Map<string, Diagnostic[]>;
}

const indexes = new WeakMap<Catalog, WeakMap<SkillFilter, ListIndex>>();

/** Most rows per page; the page asks for 50. */
export const MAX_PER_PAGE = 200;

/** The catalog's diagnostics by file, and its list rows (served skills, then shadowed ones). Cached per catalog. */
export function listIndex(catalog: Catalog, filter: SkillFilter): ListIndex {
  let byFilter = indexes.get(catalog);
  if (!byFilter) {
    byFilter = new WeakMap();
    indexes.set(catalog, byFilter);
  }
  const cached = byFilter.get(filter);
  if (cached) return cached;
  const byFile = new Map<string, Diagnostic[]>();
  for (const d of catalog.diagnostics) {
    if (d.code === "shadowed") continue;
    const list = byFile.get(d.file);
    if (list) list.push(d);
    else byFile.set(d.file, [d]);
  }
  const shadows = new Map<string, string[]>();
  for (const { skill, by } of catalog.shadowed) shadows.set(by.id, [...(shadows.get(by.id) ?? []), skill.id]);
  const row = (skill: Skill, shadowedBy?: Skill): SkillRow => {
    const diagnostics = byFile.get(skill.file) ?? [];
    return {
      id: skill.id,
      name: skill.name,
      description: skill.description.length > 300 ? `${skill.description.slice(0, 299)}…` : skill.description,
      kind: skill.kind,
      source: skill.source,
      location: skill.location,
      dir: skill.dir,
      ...(skill.category ? { category: skill.category } : {}),
      tags: skill.tags,
      // The server filter alone: in frozen mode the skill page says why the lock refuses a skill.
      enabled: passesFilter(skill, filter),
      ...(shadowedBy ? { shadowedBy: shadowedBy.id } : {}),
      shadows: shadows.get(skill.id) ?? [],
      warnings: diagnostics.filter((d) => d.severity === "warning").length,
      errors: diagnostics.filter((d) => d.severity === "error").length,
    };
  };
  const rows = [...catalog.skills.map((s) => row(s)), ...catalog.shadowed.map(({ skill, by }) => row(skill, by))];
  const haystacks = rows.map((r) => `${r.name} ${r.description} ${r.source} ${r.tags.join(" ")}`.toLowerCase());
  const index = { rows, haystacks, byFile };
  byFilter.set(filter, index);
  return index;
}

/** One page of rows matching the query. Pure over the cached index. */
export function listSkills(catalog: Catalog, filter: SkillFilter, query: ListQuery): SkillPage {
  const { rows, haystacks } = listIndex(catalog, filter);
  // Each word once: a repeated word would only be matched again against every row.
  const words = [...new Set((query.filter ?? "").toLowerCase().split(/\s+/).filter(Boolean))];
  const show = query.show ?? "all";
  const keep = (r: SkillRow, i: number) => {
    if (show === "served" && (r.shadowedBy || !r.enabled)) return false;
    if (show === "shadowed" && !r.shadowedBy && r.shadows.length === 0) return false;
    if (show === "problems" && r.warnings + r.errors === 0) return false;
    if (show === "disabled" && r.enabled) return false;
    const hay = haystacks[i] ?? "";
    return words.every((w) => hay.includes(w));
  };
  const matching = words.length === 0 && show === "all" ? rows : rows.filter(keep);
  const perPage = Math.min(MAX_PER_PAGE, Math.max(1, query.perPage ?? 50));
  const pages = Math.max(1, Math.ceil(matching.length / perPage));
  const page = Math.min(pages, Math.max(1, query.page ?? 1));
  const shadowed = matching.reduce((n, r) => n + (r.shadowedBy ? 1 : 0), 0);
  return {
    total: matching.length,
    served: matching.length - shadowed,
    shadowed,
    page,
    pages,
    perPage,
    items: matching.slice((page - 1) * perPage, page * perPage),
  };
}
