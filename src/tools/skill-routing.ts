import type { Catalog } from "../catalog/catalog.ts";
import { isEnabled, type SkillFilter } from "../catalog/filters.ts";
import {
  decideMatch,
  type MatchingOptions,
  type MatchOutcome,
  type Scored,
  scoreKeywords,
  tokenize,
} from "../search/keyword-matcher.ts";
import type { Skill } from "../skills/skill.ts";

/**
 * A description is weaker evidence than declared keywords or a name: its
 * coverage of the request counts for 80 %, so a tree node whose keywords fit
 * as well wins over an Agent Skill that merely mentions the same words.
 */
export const DESCRIPTION_WEIGHT = 0.8;

interface RoutingEntry {
  skill: Skill;
  /** Tree nodes: their keywords. Agent Skills: the words of their name, and their tags. */
  keywords: string[];
  priority: number;
  /** Agent Skills only: tokens of the description. */
  descriptionTokens?: string[];
}

/** Keyword lists per catalog snapshot, built once: a snapshot never changes. */
const entriesByCatalog = new WeakMap<Catalog, RoutingEntry[]>();

function routingEntries(catalog: Catalog): RoutingEntry[] {
  const cached = entriesByCatalog.get(catalog);
  if (cached) return cached;
  const entries = [...catalog.skills]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((skill): RoutingEntry => {
      if (skill.kind === "tree-node") return { skill, keywords: skill.keywords, priority: skill.tree?.priority ?? 0 };
      const nameWords = tokenize(skill.name.replace(/[-_.:]+/g, " "));
      return {
        skill,
        keywords: [...new Set([...nameWords, ...skill.tags])],
        priority: 0,
        descriptionTokens: tokenize(skill.description),
      };
    });
  entriesByCatalog.set(catalog, entries);
  return entries;
}

/**
 * Seed 003 §5 over one skill. Tree nodes: exactly the seed's score. Agent
 * Skills: the better of their name words and tags scored as keywords, and
 * the share of the request's tokens found in their description (×
 * DESCRIPTION_WEIGHT). (Combining both, 1 − (1 − a)(1 − b), was tried on
 * the corpora: more ambiguous answers, no more right ones.)
 */
function scoreEntry(entry: RoutingEntry, tokens: string[]): Scored<Skill> {
  const byKeywords = scoreKeywords(tokens, entry.keywords, entry.priority);
  if (!entry.descriptionTokens) return { item: entry.skill, ...byKeywords };
  // The request's tokens are the "keywords" here: the score is the share of them the description covers.
  const coverage = scoreKeywords(entry.descriptionTokens, tokens, 0);
  const byDescription = coverage.score * DESCRIPTION_WEIGHT;
  return byDescription > byKeywords.score
    ? { item: entry.skill, score: byDescription, matched: coverage.matched }
    : { item: entry.skill, ...byKeywords };
}

export type Routed = MatchOutcome<Skill> | { kind: "direct"; skill: Skill } | { kind: "disabled"; skill: Skill };

/**
 * get_skill's routing over the enabled skills of a snapshot. A context that
 * is exactly a skill path or name ("ui/react/auth", as the ambiguous answer
 * invites) selects that skill directly. When it names a disabled skill, the
 * enabled ones are still routed to; only when none fits is the answer
 * `disabled` (SKILL_DISABLED), so the model learns why, not just "no match".
 */
export function routeContext(
  catalog: Catalog,
  context: string,
  filter: SkillFilter,
  matching: MatchingOptions,
): Routed {
  const found = catalog.get(context);
  const direct = found && context.trim().toLowerCase() === found.key ? found : undefined;
  if (direct && isEnabled(direct, filter)) return { kind: "direct", skill: direct };
  const tokens = tokenize(context);
  const outcome: MatchOutcome<Skill> =
    tokens.length === 0
      ? { kind: "no_match" }
      : decideMatch(
          routingEntries(catalog)
            .filter((e) => isEnabled(e.skill, filter))
            .map((e) => scoreEntry(e, tokens)),
          matching,
        );
  return outcome.kind === "no_match" && direct ? { kind: "disabled", skill: direct } : outcome;
}
