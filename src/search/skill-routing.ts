import type { Catalog } from "../catalog/catalog.ts";
import { isEnabled, type SkillFilter } from "../catalog/filters.ts";
import type { Skill, TreeNode } from "../skills/skill.ts";
import {
  decideMatch,
  type MatchingOptions,
  type MatchOutcome,
  type Scored,
  scoreKeywords,
  tokenize,
} from "./keyword-matcher.ts";

/**
 * Which skills get_skill routes to: tree nodes only, by the keywords they
 * declare. Agent Skills (SKILL.md) declare no keywords. Routing
 * them by the words of their name or description was tried over the real
 * corpora beside skills-example/: with containment, "form" matched
 * "transformers" and "invoices" matched "invoice-organizer"; with whole
 * words only, "add a new REST endpoint" still tied with "New Relic
 * Automation" and "create a react component" went to "create-plan". So
 * Agent Skills are found by search_skills (full text over name, description,
 * tags and body) and loaded by name; get_skill stays the predictable keyword
 * router of a tree. An exact skill name or path as the context still selects
 * that skill directly, whatever its kind.
 */
export function isRouted(skill: Skill): skill is TreeNode {
  return skill.kind === "tree-node";
}

interface RoutingEntry {
  skill: Skill;
  keywords: readonly string[];
  priority: number;
}

/** Keyword lists per catalog snapshot, built once: a snapshot never changes. */
const entriesByCatalog = new WeakMap<Catalog, RoutingEntry[]>();

function routingEntries(catalog: Catalog): RoutingEntry[] {
  const cached = entriesByCatalog.get(catalog);
  if (cached) return cached;
  const entries = catalog.skills
    .filter(isRouted)
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((skill): RoutingEntry => ({ skill, keywords: skill.keywords, priority: skill.tree.priority }));
  entriesByCatalog.set(catalog, entries);
  return entries;
}

export type Routed = MatchOutcome<Skill> | { kind: "direct"; skill: Skill } | { kind: "disabled"; skill: Skill };

/**
 * get_skill's routing over the enabled tree nodes of a snapshot (the keyword
 * matcher, exactly). A context that is exactly a skill path or name ("ui/react/auth",
 * as the ambiguous answer invites) selects that skill directly. When it names
 * a disabled skill, the enabled ones are still routed to; only when none fits
 * is the answer `disabled` (SKILL_DISABLED), so the model learns why, not
 * just "no match".
 */
export function routeContext(
  catalog: Catalog,
  context: string,
  filter: SkillFilter,
  matching: MatchingOptions,
): Routed {
  const found = catalog.get(context);
  // The whole context is a skill path or a qualified id (`team:ops/release`, a shadowed node included).
  const asked = context.trim().toLowerCase();
  const direct = found && (asked === found.key || asked === found.id.toLowerCase()) ? found : undefined;
  if (direct && isEnabled(direct, filter)) return { kind: "direct", skill: direct };
  const tokens = tokenize(context);
  const outcome: MatchOutcome<Skill> =
    tokens.length === 0
      ? { kind: "no_match" }
      : decideMatch(
          routingEntries(catalog)
            .filter((e) => isEnabled(e.skill, filter))
            .map((e): Scored<Skill> => ({ item: e.skill, ...scoreKeywords(tokens, e.keywords, e.priority) })),
          matching,
        );
  return outcome.kind === "no_match" && direct ? { kind: "disabled", skill: direct } : outcome;
}
