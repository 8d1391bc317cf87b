import type { Catalog } from "../catalog/catalog.ts";
import type { Config } from "../config/schema.ts";
import type { ToolDefinition } from "../tools/definition.ts";
import { selectTools, type ToolSelection } from "../tools/index.ts";

/**
 * The tools a hub offers (profile `auto` follows the catalog), computed once per catalog generation:
 * selecting scans every skill for tree nodes, and each request asks several times.
 */
export class OfferedTools {
  private cached?: { catalog: Catalog; key: string; tools: ToolDefinition[] };

  constructor(private readonly selection: ToolSelection) {}

  get(catalog: Catalog, config: Config): ToolDefinition[] {
    // The settings selectTools reads are part of the key: cheap to compare, and a test or a future
    // reload that changes them must not see a stale list.
    const c = config;
    const key = `${c.scripts.enabled}|${c.scripts.allow_project}|${c.commands.enabled}|${c.analytics.enabled}|${c.filters.enabled_skills}|${c.filters.enabled_categories}`;
    if (this.cached?.catalog !== catalog || this.cached.key !== key)
      this.cached = { catalog, key, tools: selectTools(this.selection, catalog, c) };
    return this.cached.tools;
  }
}
