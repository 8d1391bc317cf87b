import type { Catalog } from "../../catalog/catalog.ts";

/**
 * Incremental refresh: `notifications/tools/list_changed` carries
 * a short reason string. Says what changed between two snapshots, by
 * qualified name and content hash: "skills changed: 1 added (pdf), 2 updated".
 * Pure.
 */
export function listChangedReason(previous: Catalog, next: Catalog): string {
  const before = new Map(previous.skills.map((s) => [s.id, s.hash]));
  const after = new Map(next.skills.map((s) => [s.id, s.hash]));
  const added = [...after.keys()].filter((id) => !before.has(id));
  const removed = [...before.keys()].filter((id) => !after.has(id));
  const updated = [...after.entries()]
    .filter(([id, hash]) => before.has(id) && before.get(id) !== hash)
    .map(([id]) => id);
  const part = (n: string[], verb: string) => {
    if (n.length === 0) return [];
    const names = n.slice(0, 3).map((id) => id.slice(id.indexOf(":") + 1));
    return [`${n.length} ${verb} (${names.join(", ")}${n.length > 3 ? ", …" : ""})`];
  };
  const parts = [...part(added, "added"), ...part(removed, "removed"), ...part(updated, "updated")];
  return parts.length === 0 ? "skills changed on disk" : `skills changed: ${parts.join(", ")}`;
}
