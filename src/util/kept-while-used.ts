/**
 * A value made on demand and dropped once nobody has asked for it for `idleMs`, so that what only serves
 * requests (a catalog's Skill objects and look-ups) is not kept while the server idles. `beforeDrop` sees
 * the value first (a catalog packs its records then, off any request's path). The timer is unref'd: it
 * never keeps a process alive, nor its owner.
 */
export class KeptWhileUsed<T> {
  private lastUse = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly make: () => T,
    private readonly idleMs: number,
    private value?: T,
    private readonly beforeDrop?: (value: T) => void,
  ) {
    if (value !== undefined) this.touch();
  }

  get(): T {
    if (this.value === undefined) this.value = this.make();
    this.touch();
    return this.value;
  }

  /** Whether the value is held now (tests, figures). */
  get held(): boolean {
    return this.value !== undefined;
  }

  /** Drop the value now (the next get makes it again). */
  drop(): void {
    if (this.value !== undefined) this.beforeDrop?.(this.value);
    this.value = undefined;
  }

  private touch(): void {
    this.lastUse = performance.now();
    if (!this.timer) this.arm(this.idleMs);
  }

  private arm(ms: number): void {
    // Weakly: an owner nobody holds any more (a catalog replaced by a rescan) is not kept for its timer,
    // nor given the work of a drop.
    const self = new WeakRef(this);
    this.timer = setTimeout(() => self.deref()?.check(), ms);
    this.timer.unref();
  }

  private check(): void {
    this.timer = undefined;
    const idle = performance.now() - this.lastUse;
    if (idle < this.idleMs) this.arm(this.idleMs - idle);
    else this.drop();
  }
}
