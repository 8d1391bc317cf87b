import type { Catalog } from "../catalog/catalog.ts";
import type { Hub } from "./hub.ts";

/** What decides the skills a client is shown: the catalog's served names and descriptions, and a frozen server's locks. */
export function visibleSignature(hub: Hub, catalog: Catalog = hub.catalog): string {
  return `${catalog.visibleHash}|${hub.frozen?.generation() ?? ""}`;
}

/**
 * The tools/list signature: the tool set, the skill tool's catalog when it is
 * offered, any change on disk when the `skills.*` tools are (their contract
 * announces every change, edited bodies included), and whether there was a
 * catalog at all.
 */
export function toolsSignature(hub: Hub): string {
  const names = hub.tools().map((t) => t.name);
  const listed = names.includes("skill") ? visibleSignature(hub) : "";
  const sk = names.some((n) => n.startsWith("skills.")) ? hub.catalog.contentHash : "";
  // A listing of no catalog yet ("still reading") differs from any scan's, even one that found nothing.
  return `${names.join(",")}|${listed}|${sk}|${hub.catalogPending ? "pending" : ""}`;
}
