import type { Source } from "../sources/source-list.ts";
import type { PackedRecord, VerifyPlan, WalkRecord } from "../sources/walk-record.ts";

/**
 * A stat-only check of the last scan (Scanner.verify): "unchanged" means a scan now would give the same
 * catalog; "changed" that something differs (a full scan says what); "unknown" that there is nothing to
 * check against (no scan yet, other sources, the last scan met unreadable files, or its records were
 * handed to the watch worker).
 */
export type Verdict = "unchanged" | "changed" | "unknown";

function sameSource(a: Source, b: Source): boolean {
  return a.label === b.label && a.dir === b.dir && a.location === b.location && a.qualifier === b.qualifier;
}

export function sameSources(a: readonly Source[], b: readonly Source[]): boolean {
  return a.length === b.length && a.every((s, i) => sameSource(s, b[i] as Source));
}

/** What the last scan's walks looked at, per source (WalkRecord): what a check by stat verifies. */
export class ScanRecords {
  constructor(
    readonly sources: readonly Source[],
    readonly walks: readonly WalkRecord[],
    /** False when a stat cannot vouch for the scan (an unreadable file or folder), or the records were handed over. */
    readonly verifiable: boolean,
    /** Handed to the watch worker's check (handOver), which holds them. */
    readonly handed = false,
  ) {}

  /**
   * Whether the scan still holds for `sources`, by stat only: the entries `plan` selects, through `verify`
   * (Walker.verify), pausing with `tick` every VERIFY_CHUNK stats. Reads no file and builds nothing.
   */
  async verify(
    sources: readonly Source[],
    plan: VerifyPlan,
    verify: (record: WalkRecord, plan: VerifyPlan) => Generator<void, boolean, void>,
    tick: () => Promise<void>,
  ): Promise<Verdict> {
    if (!this.verifiable || !sameSources(this.sources, sources)) return "unknown";
    for (const record of this.walks) {
      const steps = verify(record, plan);
      let step = steps.next();
      while (!step.done) {
        await tick();
        step = steps.next();
      }
      if (!step.value) return "changed";
    }
    return "unchanged";
  }

  /** Folders outside skills the walks recorded (where new skills appear): what the runtime polls. */
  get structureFolders(): string[] {
    return this.walks.flatMap((record) => record.structure.paths);
  }

  /** Skill folders and files the walks recorded: what a timer tick's check slices (timerPlan). */
  get slicedEntries(): number {
    let n = 0;
    for (const record of this.walks) n += record.skillDirs.length + record.files.length;
    return n;
  }

  /**
   * Hand these records to `check` (the watch worker's check), which packs them if it takes them (`pack`
   * gives undefined when a stat cannot vouch for them). The records to keep: once it took them, only
   * what the runtime polls (structureFolders), never verified again (a scan records everything anew).
   * Records already handed over stay as they are.
   */
  handOver(check: (pack: () => PackedRecord[] | undefined, sliced: number) => boolean): ScanRecords {
    if (this.handed) return this;
    const pack = () => (this.verifiable ? this.walks.map((walk) => walk.pack()) : undefined);
    if (!check(pack, this.slicedEntries) || !this.verifiable) return this;
    const kept = this.walks.map((walk) => walk.structureOnly());
    return new ScanRecords(this.sources, kept, false, true);
  }
}
