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
  /** The catalog installed by seed(), until the first swap replaces it. */
  private seeded?: Catalog;
  private swapped = false;
  private listeners = new Set<(change: CatalogChange) => void>();

  constructor(initial: Catalog = Catalog.empty()) {
    this.current = initial;
  }

  get catalog(): Catalog {
    return this.current;
  }

  /**
   * Whether the current catalog is a seed (the last run's snapshot) that no scan has confirmed yet:
   * good for listing, never for a lookup that must find the file on disk.
   */
  get provisional(): boolean {
    return this.seeded !== undefined && this.current === this.seeded;
  }

  /** Whether `catalog` is the seed (change listeners compare a scan with what was listed from it). */
  isSeed(catalog: Catalog): boolean {
    return catalog === this.seeded;
  }

  /**
   * Install a provisional catalog before the first scan, without telling listeners (nothing changed on
   * disk). Refused (false) once anything has been swapped in: a scan's catalog is never replaced by a seed.
   */
  seed(catalog: Catalog): boolean {
    if (this.swapped) return false;
    this.seeded = catalog;
    this.current = catalog;
    return true;
  }

  /** Install `next`; listeners hear about it only when its content differs. */
  swap(next: Catalog): CatalogChange | undefined {
    const previous = this.current;
    this.current = next;
    this.swapped = true;
    const change =
      previous.contentHash === next.contentHash && previous.diagnostics.length === next.diagnostics.length
        ? undefined
        : { previous, next, visibleChanged: previous.visibleHash !== next.visibleHash };
    if (change) for (const listener of this.listeners) listener(change);
    // Listeners have compared the first scan with the seed: keeping it would keep a whole catalog alive.
    this.seeded = undefined;
    return change;
  }

  onChange(listener: (change: CatalogChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
