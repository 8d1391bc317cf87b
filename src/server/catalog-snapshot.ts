import { closeSync, fstatSync, readFileSync, readSync, type Stats } from "node:fs";
import { join } from "node:path";
import { Catalog, type SourceScan } from "../catalog/catalog.ts";
import { catalogStamps } from "../catalog/catalog-stamps.ts";
import { type Skill, sharingEmptyWords } from "../skills/skill.ts";
import type { Source } from "../sources/source-list.ts";
import { pickedSkills } from "../usage/picked.ts";
import { writeAtomic } from "../util/atomic-write.ts";
import type { Diagnostic } from "../util/diagnostic.ts";
import { errorMessage } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";
import { nextTurn } from "../util/next-turn.ts";
import { OWN_FILE_MODE, openOwnFile } from "../util/own-file.ts";
import { VERSION } from "../version.ts";
import type { Hub } from "./hub.ts";
import type { KeptNamedSkill } from "./instructions.ts";

/**
 * The format of the file. A file of another version (an older or newer SkillHub) is ignored, never
 * half-read: bump this whenever what is written, or what a Skill holds, changes shape.
 */
export const SNAPSHOT_VERSION = 6;
const FORMAT = "skillhub-catalog";

/** Most skills the header keeps for the instructions: more than they ever name. */
const NAMED_KEPT = 64;

/** Longest header read (bytes): 64 names and descriptions fit many times over. */
const HEADER_MAX_BYTES = 1 << 20;

/**
 * Line 1 of the file: small, read before `initialize` is answered. The lines after it hold the catalog,
 * parsed only after that answer, so a 10,000-skill snapshot does not delay it.
 */
interface SnapshotHeader {
  format: typeof FORMAT;
  version: number;
  /** The SkillHub that wrote it: its skills are the parses of unchanged files (Scanner.seed) for it only. */
  skillhub: string;
  /** Catalog.contentHash of the catalog saved: an unchanged catalog is not written again. */
  contentHash: string;
  /**
   * The skills' files' stamps (catalogStamps): a catalog whose files were only touched (chmod, `cp -a`)
   * is written again, or every start would read those files again.
   */
  stamps: string;
  /** Skill lines that follow: a file that holds fewer is not used. */
  skills: number;
  /** The skills the instructions may name, most useful first when saved (usage/skill-pick.ts). */
  named: KeptNamedSkill[];
}

/** After the header, what the Catalog constructor needs: a line per source, then one per skill it serves. */
interface SourceLine {
  source: Pick<Source, "label" | "dir" | "location" | "qualifier">;
  exists: boolean;
  dirCount: number;
}

/** Fields a skill's source or name gives back: not written. */
type Derived = "key" | "source" | "location" | "root";

/**
 * A skill as the file keeps it (Omit over each member, so `kind` still tells the two apart): all its
 * parse gave, the diagnostics about its file included (a served skill's file has no others).
 */
type KeptSkill = (Skill extends infer S ? (S extends Skill ? Omit<S, Derived> : never) : never) & {
  diagnostics?: Omit<Diagnostic, "source">[];
};

/** A snapshot read from disk: the header at once, the catalog on demand. */
export interface CatalogSnapshot {
  file: string;
  contentHash: string;
  stamps: string;
  /** The skills the instructions may name, most useful first when the file was saved. */
  named: KeptNamedSkill[];
  /** Parse the catalog (undefined, with a debug log, when a line after the header is malformed). */
  catalog(): Catalog | undefined;
}

/**
 * The last run's catalog (skill metadata, no bodies), kept beside the search index, one file per set
 * of source folders. A stdio client lists tools right after `initialize`, while the first scan of a
 * large catalog is still running: the snapshot answers that list at once, and the scan's catalog
 * replaces it (list_changed when it differs). Calls never use it: they wait for the scan.
 */
export function snapshotFile(hub: Hub): string {
  const cacheDir = hub.config.cache_path ?? join(hub.config.home, "index");
  const dirs = hub.sources().map((s) => s.dir);
  return join(cacheDir, `catalog-${Bun.hash(dirs.join("\u0000")).toString(16)}.json`);
}

/**
 * Most skills a snapshot may list for a listing to wait for the first scan (hub.listingWaitMs(true) at
 * most): a scan that keeps the snapshot's parses reads them in tens of milliseconds, so a client that lists
 * once and quits sees a skill added since. A larger collection is listed from the snapshot at once, where
 * waiting would cost the listing most of a second; so is any collection while a repository sync, which
 * takes longer than that, holds the first scan.
 */
export const WAITED_SNAPSHOT_SKILLS = 1000;

/**
 * What a listing (prompts/list, resources/list) waits for: the first scan, except while the last run's
 * snapshot stands in for it (then list_changed follows when the scan differs); a small snapshot waits a
 * moment for the scan first (WAITED_SNAPSHOT_SKILLS). Calls and reads always wait for the scan (hub.ready).
 */
export function listingReady(hub: Hub): Promise<unknown> | undefined {
  if (!hub.store.provisional) return hub.ready;
  if (hub.catalog.size > WAITED_SNAPSHOT_SKILLS || hub.git !== undefined) return undefined;
  return firstScanOrWait(hub, "snapshot");
}

/**
 * What tools/list waits for: as listingReady, and on a first start too (no snapshot, the first scan
 * under way) it waits hub.listingWaitMs(false) at most, then lists the tools with the skills still being
 * read (the skill tool says so, and list_changed follows the scan: announce-changes.ts).
 */
export function toolsListingReady(hub: Hub): Promise<unknown> | undefined {
  return hub.catalogPending ? firstScanOrWait(hub, "nothing") : listingReady(hub);
}

/** The first scan's end or a deadline, whichever comes first: one deadline per start for what is listed meanwhile. */
const firstScanWaits = new WeakMap<Hub, Map<"snapshot" | "nothing", Promise<unknown>>>();

/**
 * The first scan, or hub.listingWaitMs of the first listing made with the snapshot (or with nothing) to
 * stand in for it, whichever ends first: a client's later listings, and each page of one, wait no more.
 */
function firstScanOrWait(hub: Hub, standIn: "snapshot" | "nothing"): Promise<unknown> {
  const waits = firstScanWaits.get(hub) ?? new Map();
  firstScanWaits.set(hub, waits);
  let wait = waits.get(standIn);
  if (!wait) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    wait = Promise.race([
      hub.ready,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, hub.listingWaitMs(standIn === "snapshot"));
        timer.unref?.();
      }),
    ]).finally(() => clearTimeout(timer));
    waits.set(standIn, wait);
  }
  return wait;
}

/** The sources a snapshot's skills may be listed from: those served now, as the snapshot names them. */
export type ServedSource = Pick<Source, "label" | "dir" | "location" | "qualifier">;

/**
 * Read the header; undefined (and a debug log unless the file is simply missing) when unusable.
 *
 * Security: only the skills of `served` (the sources served now) are listed or taken as parses. With
 * trust.allowed_signers a repository's copy is served only once verified, which happens after the
 * snapshot is read: its skills, saved when a copy passed, must not be listed before the copy is checked
 * again (the signers may have changed, the copy may have been changed on disk).
 */
export function readSnapshot(
  file: string,
  logger: Logger,
  served: readonly ServedSource[],
): CatalogSnapshot | undefined {
  const ignored = (why: string) => {
    logger.debug(`catalog snapshot ignored (${file}): ${why}`);
    return undefined;
  };
  const isServed = servedTest(served);
  let line: string | undefined;
  let identity: Stats;
  try {
    const fd = openOwnFile(file);
    try {
      identity = fstatSync(fd);
      line = firstLine(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return ignored(errorMessage(error));
  }
  if (line === undefined) return ignored("no catalog line");
  let header: SnapshotHeader;
  try {
    header = JSON.parse(line) as SnapshotHeader;
  } catch (error) {
    return ignored(`malformed header: ${errorMessage(error)}`);
  }
  if (header?.format !== FORMAT) return ignored("not a SkillHub catalog snapshot");
  if (header.version !== SNAPSHOT_VERSION)
    return ignored(`version ${String(header.version)}, this SkillHub reads version ${SNAPSHOT_VERSION}`);
  if (header.skillhub !== VERSION) return ignored(`written by SkillHub ${String(header.skillhub)}, this is ${VERSION}`);
  if (
    typeof header.contentHash !== "string" ||
    typeof header.stamps !== "string" ||
    !Array.isArray(header.named) ||
    typeof header.skills !== "number"
  )
    return ignored("malformed header");
  const named = header.named
    .filter(
      (s) =>
        typeof s?.name === "string" &&
        typeof s.id === "string" &&
        typeof s.description === "string" &&
        typeof s.alwaysApply === "boolean" &&
        typeof s.root === "string" &&
        typeof s.dir === "string" &&
        typeof s.source === "string" &&
        typeof s.location === "string" &&
        typeof s.mtimeMs === "number" &&
        isServed({ label: s.source, dir: s.root, location: s.location }),
    )
    .map((s): KeptNamedSkill => ({ ...s, kind: s.kind === "tree-node" ? "tree-node" : "agent-skill" }));
  return {
    file,
    contentHash: header.contentHash,
    stamps: header.stamps,
    named,
    catalog: () => {
      try {
        const fd = openOwnFile(file);
        try {
          const now = fstatSync(fd);
          if (now.ino !== identity.ino || now.dev !== identity.dev)
            throw new Error("replaced since its header was read");
          return catalogOf(readFileSync(fd), header.skills, isServed);
        } finally {
          closeSync(fd);
        }
      } catch (error) {
        return ignored(`malformed catalog: ${errorMessage(error)}`);
      }
    },
  };
}

/** Whether a source of this label, folder and location is one of `served`. */
type IsServed = (source: { label: string; dir: string; location: string }) => boolean;

function servedTest(served: readonly ServedSource[]): IsServed {
  const key = (s: { label: string; dir: string; location: string }) => `${s.label}\u0000${s.dir}\u0000${s.location}`;
  const keys = new Set(served.map(key));
  return (source) => keys.has(key(source));
}

/**
 * The file's first line, read in chunks: at 10,000 skills the whole file is megabytes, and reading it
 * before `initialize` is answered would cost what the snapshot saves. Undefined when no line ends.
 */
function firstLine(fd: number): string | undefined {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < HEADER_MAX_BYTES) {
    const chunk = Buffer.alloc(64 * 1024);
    const n = readSync(fd, chunk, 0, chunk.length, total);
    if (n === 0) return undefined;
    const newline = chunk.subarray(0, n).indexOf(10);
    if (newline >= 0) {
      chunks.push(chunk.subarray(0, newline));
      return Buffer.concat(chunks).toString("utf8");
    }
    chunks.push(chunk.subarray(0, n));
    total += n;
  }
  return undefined;
}

/**
 * The catalog of the lines after the header, parsed one line at a time from the file's bytes: one
 * 7 MB string for 10,000 skills (twice that once any character is outside Latin-1) and its parse
 * stayed resident as 40 MB after they were freed. Throws on a shape the Catalog constructor cannot take.
 */
function catalogOf(bytes: Buffer, expected: number, isServed: IsServed): Catalog {
  const scans: SourceScan[] = [];
  let scan: SourceScan | undefined;
  // A source not served now: its skills are counted, not kept.
  let skipping = false;
  let skills = 0;
  for (let from = bytes.indexOf(10) + 1; from < bytes.length; ) {
    const end = bytes.indexOf(10, from);
    if (end < 0) throw new Error("the last line does not end");
    const line = JSON.parse(bytes.toString("utf8", from, end)) as SourceLine | KeptSkill;
    from = end + 1;
    if ("source" in line) {
      const source = line.source;
      if (typeof source?.label !== "string" || typeof source.dir !== "string")
        throw new Error("a source without label or folder");
      skipping = !isServed(source);
      if (skipping) continue;
      scan = {
        source,
        exists: line.exists === true,
        dirCount: Number(line.dirCount) || 0,
        skills: [],
        diagnostics: [],
      };
      scans.push(scan);
    } else if (skipping) skills++;
    else if (!scan) throw new Error("a skill before any source");
    else {
      scan.skills.push(skillOf(line, scan));
      skills++;
    }
  }
  if (skills !== expected) throw new Error(`${skills} skills of the ${expected} the header counts`);
  return new Catalog(scans, 0);
}

/** A kept skill back as the Skill it was, its diagnostics added to `scan`'s. */
function skillOf(kept: KeptSkill, scan: SourceScan): Skill {
  const { diagnostics: notes, ...s } = kept;
  if (typeof s?.name !== "string" || typeof s.id !== "string" || typeof s.description !== "string")
    throw new Error("a skill without name, id or description");
  if (typeof s.file !== "string" || !Array.isArray(s.tags) || !Array.isArray(s.keywords))
    throw new Error(`skill ${s.name}: no file, tags or keywords`);
  if (
    typeof s.mtimeMs !== "number" ||
    typeof s.ctimeMs !== "number" ||
    typeof s.ino !== "number" ||
    typeof s.size !== "number" ||
    typeof s.hash !== "string"
  )
    throw new Error(`skill ${s.name}: no stamp, size or hash`);
  if (typeof s.frontmatterJson !== "string") throw new Error(`skill ${s.name}: no frontmatter`);
  const { source } = scan;
  for (const d of Array.isArray(notes) ? notes : []) scan.diagnostics.push({ ...d, source: source.label });
  const skill = { ...s, key: s.name.toLowerCase(), source: source.label, location: source.location, root: source.dir };
  return sharingEmptyWords(skill);
}

/** Skills written between two pauses of a save (saveSnapshot). */
const SKILLS_PER_PIECE = 250;

/**
 * The snapshot's lines for `hub`'s current catalog, in pieces: the header, then each source's line and
 * its skills' lines a few hundred at a time (written at once, 10,000 skills held the event
 * loop 40 ms).
 */
export function* snapshotPieces(hub: Hub): Generator<string> {
  const catalog = hub.catalog;
  // What a pick at the next start needs (it is made again then, with that day's usage and project).
  const named = pickedSkills(hub, hub.usage)
    .slice(0, NAMED_KEPT)
    .map(
      (s): KeptNamedSkill => ({
        id: s.id,
        name: s.name,
        description: s.description,
        alwaysApply: s.alwaysApply,
        kind: s.kind,
        location: s.location,
        root: s.root,
        dir: s.dir,
        source: s.source,
        mtimeMs: s.mtimeMs,
      }),
    );
  const header: SnapshotHeader = {
    format: FORMAT,
    version: SNAPSHOT_VERSION,
    skillhub: VERSION,
    contentHash: catalog.contentHash,
    stamps: catalogStamps(catalog),
    skills: catalog.skills.length,
    named,
  };
  yield `${JSON.stringify(header)}\n`;
  const bySource = new Map<string, Skill[]>();
  for (const skill of catalog.skills) {
    const list = bySource.get(skill.source);
    if (list) list.push(skill);
    else bySource.set(skill.source, [skill]);
  }
  for (const s of catalog.sources) {
    const line: SourceLine = {
      source: { label: s.label, dir: s.dir, location: s.location, qualifier: s.qualifier },
      exists: s.exists,
      dirCount: s.dirCount,
    };
    yield `${JSON.stringify(line)}\n`;
    const skills = bySource.get(s.label) ?? [];
    for (let from = 0; from < skills.length; from += SKILLS_PER_PIECE) {
      let piece = "";
      for (const skill of skills.slice(from, from + SKILLS_PER_PIECE))
        piece += `${JSON.stringify(kept(skill, catalog.diagnosticsFor(skill.file)))}\n`;
      yield piece;
    }
  }
}

/** The snapshot's lines for `hub`'s current catalog, whole. */
export function snapshotText(hub: Hub): string {
  return [...snapshotPieces(hub)].join("");
}

/** What the file keeps of a skill: not what its source and name give back (nor its diagnostics' source). */
function kept(skill: Skill, diagnostics: readonly Diagnostic[]): KeptSkill {
  const { key, source, location, root, ...rest } = skill;
  return diagnostics.length > 0 ? { ...rest, diagnostics: diagnostics.map(({ source, ...d }) => d) } : rest;
}

/**
 * Keep `hub`'s current catalog for the next start (atomic write; failures only logged), awaiting
 * `pause` between pieces so that calls are answered meanwhile; the file is written off the event loop,
 * each piece as it is made, so a large catalog's lines are never all held at once (a first start's peak).
 */
export async function saveSnapshot(hub: Hub, file: string, pause: () => Promise<void> = nextTurn): Promise<void> {
  async function* paced() {
    for (const piece of snapshotPieces(hub)) {
      yield piece;
      await pause();
    }
  }
  try {
    await writeAtomic(file, paced(), { mode: OWN_FILE_MODE });
    hub.memory.soon();
  } catch (error) {
    hub.logger.debug(`catalog snapshot not kept (${file}): ${errorMessage(error)}`);
  }
}
