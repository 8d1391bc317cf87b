import { dirname, relative, sep } from "node:path";
import { MAX_NAME_LENGTH, NAME_PATTERN } from "../skills/agent-skill.ts";
import type { Skill } from "../skills/skill.ts";
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
 * 2. the project's own skills (its .agents, .claude and explicit folders inside it), most used first;
 * 3. skills loaded before, in this or an earlier session, most loaded (then most recently) first;
 * 4. skills whose name or description holds the project's words (its languages, tools, dependencies),
 *    most of them first;
 * 5. the rest.
 * Within 4 and 5, the most recently changed (by day) come first, then each folder of skills ("a
 * collection": the folder holding the skill folders) takes its turn, so that a collection of hundreds
 * of look-alike skills cannot fill the list; well-formed names before others, then by name. Pure.
 */
export function pickSkills<T extends PickedSkill>(skills: readonly T[], options: PickOptions = {}): T[] {
  const usage = options.usage;
  const projectDir = options.projectDir ?? null;
  const matcher = termMatcher(options.terms);
  const rows = skills.map((skill) => {
    const count = usage?.get(skill.id) ?? 0;
    const own = isProjects(skill, projectDir);
    return {
      skill,
      tier: skill.alwaysApply ? 0 : own ? 1 : count > 0 ? 2 : 3,
      count,
      last: count > 0 ? (usage?.lastUsed(skill.id) ?? 0) : 0,
      score: matcher ? matcher(`${skill.name} ${skill.description}`) : 0,
      day: Math.floor(skill.mtimeMs / DAY_MS),
      wellFormed: skill.name.length <= MAX_NAME_LENGTH && NAME_PATTERN.test(skill.name),
      collection: collectionOf(skill),
    };
  });
  type Row = (typeof rows)[number];
  const order = (a: Row, b: Row) =>
    a.tier - b.tier ||
    b.count - a.count ||
    b.last - a.last ||
    b.score - a.score ||
    b.day - a.day ||
    Number(b.wellFormed) - Number(a.wellFormed) ||
    (a.skill.name < b.skill.name ? -1 : a.skill.name > b.skill.name ? 1 : 0);
  rows.sort(order);
  // Rows that nothing but their day, form and name set apart take turns by collection.
  const out: T[] = [];
  for (let start = 0; start < rows.length; ) {
    const head = rows[start] as Row;
    let end = start + 1;
    const same = (r: Row) => r.tier === head.tier && r.count === 0 && r.score === head.score && r.day === head.day;
    if (head.tier === 3 || (head.count === 0 && head.tier !== 0))
      while (end < rows.length && same(rows[end] as Row)) end++;
    for (const row of end - start > 1 ? byTurns(rows.slice(start, end)) : [head]) out.push(row.skill);
    start = end;
  }
  return out;
}

/** Whether a skill is the project's: in a project folder, or in an explicit folder inside the project root. */
function isProjects(skill: PickedSkill, projectDir: string | null): boolean {
  if (skill.location === "project") return true;
  return (
    skill.location === "explicit" &&
    projectDir !== null &&
    (skill.root === projectDir || skill.root.startsWith(`${projectDir}${sep}`))
  );
}

/** The folder that holds the skill's folder, with its source: skills side by side are one collection. */
function collectionOf(skill: PickedSkill): string {
  return `${skill.source}\u0000${dirname(relative(skill.root, skill.dir))}`;
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
 * A scorer of text by the project's words: the sum of the weights of the distinct words it holds, as
 * whole words, case-insensitively. One expression for all words, so a catalog is scored in one pass.
 */
function termMatcher(terms: ProjectTerms | undefined): ((text: string) => number) | undefined {
  if (!terms || terms.size === 0) return undefined;
  const escaped = [...terms.keys()].map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp(`(?<![a-z0-9])(${escaped.join("|")})(?![a-z0-9])`, "gi");
  return (text) => {
    const found = new Set<string>();
    for (const match of text.matchAll(pattern)) found.add((match[1] as string).toLowerCase());
    let score = 0;
    for (const word of found) score += terms.get(word) ?? 0;
    return score;
  };
}
