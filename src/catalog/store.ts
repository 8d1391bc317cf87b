import { Catalog } from "./catalog.ts";

export interface CatalogChange {
  previous: Catalog;
  next: Catalog;
  /** Names, descriptions or locations changed: a client's tool listing is stale. */
  visibleChanged: boolean;
}

/**
 * Holds the current snapshot. `swap` replaces it in one assignment, so a
 * reader never sees a half-built catalog and a rescan never opens a window in
 * which existing skills answer "not found".
 */
export class CatalogStore {
  private current: Catalog;
  private listeners = new Set<(change: CatalogChange) => void>();

  constructor(initial: Catalog = Catalog.empty()) {
    this.current = initial;
  }

  get catalog(): Catalog {
    return this.current;
  }

  /** Install `next`; listeners hear about it only when its content differs. */
  swap(next: Catalog): CatalogChange | undefined {
    const previous = this.current;
    this.current = next;
    if (previous.contentHash === next.contentHash && previous.diagnostics.length === next.diagnostics.length)
      return undefined;
    const change = { previous, next, visibleChanged: previous.visibleHash !== next.visibleHash };
    for (const listener of this.listeners) listener(change);
    return change;
  }

  onChange(listener: (change: CatalogChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
