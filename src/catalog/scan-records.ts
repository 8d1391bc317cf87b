import type { Source } from "../sources/source-list.ts";
import type { WalkRecord } from "../sources/walk-record.ts";
import { isInside } from "../util/safe-path.ts";

/**
 * A stat-only check of the last scan (Scanner.verify): "unchanged" means a scan now would give the same
 * catalog; "changed" that something differs (a full scan says what); "unknown" that there is nothing to
 * check against (no scan yet, other sources, or the last scan met unreadable files).
 */
export type Verdict = "unchanged" | "changed" | "unknown";

function sameSource(a: Source, b: Source): boolean {
  return (
    a.label === b.label &&
    a.dir === b.dir &&
    a.location === b.location &&
    a.qualifier === b.qualifier &&
    a.within === b.within
  );
}

export function sameSources(a: readonly Source[], b: readonly Source[]): boolean {
  return a.length === b.length && a.every((s, i) => sameSource(s, b[i] as Source));
}

/** Where a server's watches go (ScanRecords.watchRoots). */
export interface WatchPlan {
  /** Folders watched with every folder below them. */
  roots: string[];
  /** Real paths of file systems mounted inside them: not covered when their watches miss others' changes. */
  mounts: string[];
  /** Source folders left to the stat check, and why. */
  unwatched: { path: string; why: string }[];
  /** Source folders not there (yet): where one appears is watched for it. */
  absent: string[];
}

/** What the last scan's walks looked at, per source (WalkRecord): what a check by stat verifies. */
export class ScanRecords {
  constructor(
    readonly sources: readonly Source[],
    readonly walks: readonly WalkRecord[],
    /** False when a stat cannot vouch for the scan (an unreadable file or folder). */
    readonly verifiable: boolean,
  ) {}

  /**
   * Whether the scan still holds for `sources`, by stat only (Walker.verify through `verify`), pausing
   * with `tick` every VERIFY_CHUNK stats. Reads no file and builds nothing.
   */
  async verify(
    sources: readonly Source[],
    verify: (record: WalkRecord) => Generator<void, boolean, void>,
    tick: () => Promise<void>,
  ): Promise<Verdict> {
    if (!this.verifiable || !sameSources(this.sources, sources)) return "unknown";
    for (const record of this.walks) {
      const steps = verify(record);
      let step = steps.next();
      while (!step.done) {
        await tick();
        step = steps.next();
      }
      if (!step.value) return "changed";
    }
    return "unchanged";
  }

  /**
   * Where watches are set: each source's real folder and each folder a walk entered through a link, but
   * none inside another (a watch covers every folder below its own), and the file systems mounted inside
   * them. A source whose folders a watch would not match is left to the stat check (`unwatched`): one
   * holding a dependency tree, or deeper than the walk went, or whose folders would take the watches
   * past `maxFolders` for all sources together (a watch takes one of the system's watches per folder).
   */
  watchRoots(maxFolders: number): WatchPlan {
    const unwatched: { path: string; why: string }[] = [];
    let folders = 0;
    const candidates = this.walks.flatMap((record) => {
      if (!record.rootReal) return [];
      const own = record.structure.length + record.skillDirs.length;
      if (record.dependencyTrees > 0)
        unwatched.push({ path: record.root, why: "it holds node_modules or .venv, which a watch would enter" });
      else if (record.depthLimited)
        unwatched.push({ path: record.root, why: "it goes deeper than sources.max_depth, where a watch would follow" });
      else if (folders + own > maxFolders)
        unwatched.push({
          path: record.root,
          why: `its ${own} folders would take the watches past a quarter of the system's limit (${maxFolders})`,
        });
      else {
        folders += own;
        return [record.rootReal, ...record.linkedFolders];
      }
      return [];
    });
    const roots = [...new Set(candidates)].sort();
    return {
      roots: roots.filter((root, i) => !roots.slice(0, i).some((outer) => isInside(outer, root))),
      mounts: this.walks.flatMap((record) => record.mounts),
      unwatched,
      absent: this.walks.filter((record) => !record.rootReal).map((record) => record.root),
    };
  }
}
