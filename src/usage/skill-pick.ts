import { sep } from "node:path";
import { MAX_NAME_LENGTH, NAME_PATTERN } from "../skills/agent-skill.ts";
import type { Skill } from "../skills/skill.ts";
import { isProjects } from "../sources/source-list.ts";
import type { ProjectTerms } from "./project-signals.ts";

/** What a pick reads of each skill. */
export type PickedSkill = Pick<
  Skill,
  "id" | "name" | "description" | "alwaysApply" | "location" | "root" | "dir" | "source" | "mtimeMs"
>;

/** What a pick knows of usage: loads and the last load per skill id (usage-store.ts). */
export interface UsageHistory {
  get(id: string): number | undefined;
  lastUsed(id: string): number | undefined;
}

export interface PickOptions {
  usage?: UsageHistory;
  /** The project root: explicit folders inside it count as the project's. */
  projectDir?: string | null;
  /** The project's words (project-signals.ts). */
  terms?: ProjectTerms;
}

/** A day (ms): skills changed the same day are equally recent. */
const DAY_MS = 86_400_000;

/**
 * The skills most worth naming first, most useful first: what the instructions name, what the skill
 * tool's catalog keeps when not every name fits, and the prompts a slash menu shows.
 *
 * 1. `alwaysApply` skills;
 * 2. the project's own skills (its .agents, .claude and explicit folders inside it);
 * 3. skills loaded before, in this or an earlier session, most loaded (then most recently) first;
 * 4. the rest: well-formed names first; then skills whose name or description holds the project's
 *    words (its languages, tools, dependencies), a word counting by its weight and by how few skills
 *    hold it (a word in a tenth of the catalog says little), twice when it is the skill's name; then
 *    the most recently changed (by day); then each folder of skills ("a collection": the folder
 *    holding the skill folders) takes its turn, so that a collection of hundreds of look-alike skills
 *    cannot fill the list; then by name.
 * Within 1 and 2, the most used first, then as in 4. Pure.
 */
export function pickSkills<T extends PickedSkill>(skills: readonly T[], options: PickOptions = {}): T[] {
  return withUsage(staticOrder(skills, options), options.usage);
}

/** A catalog in pick order before usage is applied (what withUsage starts from), with each skill's group. */
export interface StaticOrder<T> {
  skills: readonly T[];
  /** 0 alwaysApply, 1 the project's, 2 the rest: by index in `skills`. */
  groups: readonly number[];
}

/**
 * The pick's order without usage: groups 1, 2 and 4 above, each ordered as 4 says. It depends on the
 * catalog and the project only, so a server keeps it while counts change (at 10,000 skills it scores
 * every description; applying usage to it then takes a pass). Pure.
 */
export function staticOrder<T extends PickedSkill>(
  skills: readonly T[],
  options: Omit<PickOptions, "usage"> = {},
): StaticOrder<T> {
  const projectDir = options.projectDir ?? null;
  const scores = termScores(skills, options.terms);
  const rows = skills.map((skill, i) => ({
    skill,
    group: skill.alwaysApply ? 0 : isProjects(skill, projectDir) ? 1 : 2,
    wellFormed: skill.name.length <= MAX_NAME_LENGTH && NAME_PATTERN.test(skill.name),
    score: scores?.[i] ?? 0,
    day: Math.floor(skill.mtimeMs / DAY_MS),
    collection: collectionOf(skill),
  }));
  type Row = (typeof rows)[number];
  rows.sort(
    (a, b) =>
      a.group - b.group ||
      Number(b.wellFormed) - Number(a.wellFormed) ||
      b.score - a.score ||
      b.day - a.day ||
      (a.skill.name < b.skill.name ? -1 : a.skill.name > b.skill.name ? 1 : 0),
  );
  // Rows that nothing but their name sets apart take turns by collection.
  const out: Row[] = [];
  for (let start = 0; start < rows.length; ) {
    const head = rows[start] as Row;
    let end = start + 1;
    const same = (r: Row) =>
      r.group === head.group && r.wellFormed === head.wellFormed && r.score === head.score && r.day === head.day;
    while (end < rows.length && same(rows[end] as Row)) end++;
    out.push(...(end - start > 1 ? byTurns(rows.slice(start, end)) : [head]));
    start = end;
  }
  return { skills: out.map((r) => r.skill), groups: out.map((r) => r.group) };
}

/**
 * Usage applied to a static order: within alwaysApply and the project's skills the most used first;
 * then every other skill loaded before, most loaded, then most recently loaded; then the rest as they
 * were. One pass, a sort of the used skills only.
 */
export function withUsage<T extends PickedSkill>(order: StaticOrder<T>, usage: UsageHistory | undefined): T[] {
  const count = (s: T) => usage?.get(s.id) ?? 0;
  const byUse = (a: T, b: T) => count(b) - count(a) || (usage?.lastUsed(b.id) ?? 0) - (usage?.lastUsed(a.id) ?? 0);
  const firsts: T[][] = [[], []];
  const used: T[] = [];
  const rest: T[] = [];
  for (const [i, skill] of order.skills.entries()) {
    const group = order.groups[i] as number;
    if (group < 2) (firsts[group] as T[]).push(skill);
    else if (count(skill) > 0) used.push(skill);
    else rest.push(skill);
  }
  if (!usage) return [...(firsts[0] as T[]), ...(firsts[1] as T[]), ...rest];
  // Array.prototype.sort is stable: equally used skills keep the static order.
  return [...(firsts[0] as T[]).sort(byUse), ...(firsts[1] as T[]).sort(byUse), ...used.sort(byUse), ...rest];
}

/** The folder that holds the skill's folder: skills side by side are one collection. */
function collectionOf(skill: PickedSkill): string {
  return skill.dir.slice(0, skill.dir.lastIndexOf(sep));
}

/** Rows in turns: each collection's first, then each one's second, … (collections in order of appearance). */
function byTurns<R extends { collection: string }>(rows: readonly R[]): R[] {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const group = groups.get(row.collection);
    if (group) group.push(row);
    else groups.set(row.collection, [row]);
  }
  if (groups.size === 1) return [...rows];
  const lists = [...groups.values()];
  const out: R[] = [];
  for (let i = 0; out.length < rows.length; i++) for (const list of lists) if (i < list.length) out.push(list[i] as R);
  return out;
}

/**
 * Each skill's score by the project's words: for each distinct word its name or description holds (a
 * whole word, any case), the word's weight times how rare it is in the catalog (ln(1 + skills / skills
 * holding it)), twice when it is the skill's name (a project that depends on scanpy, the scanpy skill). One expression for all the words: a catalog is
 * scored in one pass. Undefined without words.
 */
function termScores(skills: readonly PickedSkill[], terms: ProjectTerms | undefined): number[] | undefined {
  if (!terms || terms.size === 0) return undefined;
  const escaped = [...terms.keys()].map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  // No look-behind: an expression with one took 20 times as long on its first catalog (compiling it).
  const source = `(?:^|[^a-z0-9])(${escaped.join("|")})(?=[^a-z0-9]|$)`;
  const any = new RegExp(source, "i");
  const every = new RegExp(source, "gi");
  const none = new Set<string>();
  // Most skills hold none of the words: one test settles those.
  const found = (text: string) =>
    any.test(text) ? new Set([...text.matchAll(every)].map((m) => (m[1] as string).toLowerCase())) : none;
  const matched = skills.map((s) => ({ name: s.name.toLowerCase(), all: found(`${s.name} ${s.description}`) }));
  const holding = new Map<string, number>();
  for (const { all } of matched) for (const word of all) holding.set(word, (holding.get(word) ?? 0) + 1);
  return matched.map(({ name, all }) => {
    let score = 0;
    for (const word of all) {
      const rarity = Math.log(1 + skills.length / (holding.get(word) ?? 1));
      score += (terms.get(word) ?? 0) * rarity * (word === name ? 2 : 1);
    }
    return score;
  });
}
