import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import { Catalog, type SourceScan } from "../catalog/catalog.ts";
import { isEnabled } from "../catalog/filters.ts";
import type { Skill } from "../skills/skill.ts";
import { writeAtomic } from "../util/atomic-write.ts";
import { errorMessage } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";
import { nextTurn } from "../util/next-turn.ts";
import type { Hub } from "./hub.ts";
import type { NamedSkill } from "./instructions.ts";

/**
 * The format of the file. A file of another version (an older or newer SkillHub) is ignored, never
 * half-read: bump this whenever what is written, or what a Skill holds, changes shape.
 */
export const SNAPSHOT_VERSION = 1;
const FORMAT = "skillhub-catalog";

/** Most skills the header keeps for the instructions: more than they ever name. */
const NAMED_KEPT = 64;

/** Longest header read (bytes): 64 names and descriptions fit many times over. */
const HEADER_MAX_BYTES = 1 << 20;

/**
 * Line 1 of the file: small, read before `initialize` is answered. Line 2 holds the catalog, parsed
 * only after that answer, so a 10,000-skill snapshot does not delay it.
 */
interface SnapshotHeader {
  format: typeof FORMAT;
  version: number;
  /** Catalog.contentHash of the catalog saved: an unchanged catalog is not written again. */
  contentHash: string;
  named: Pick<Skill, "name" | "description" | "alwaysApply" | "kind">[];
}

/** Line 2: what the Catalog constructor needs, per source, served skills only. */
interface SnapshotBody {
  scans: { source: SourceScan["source"]; exists: boolean; dirCount: number; skills: KeptSkill[] }[];
}

/** Fields a skill's source or name gives back, and those a listing does not need: not written. */
type Derived = "key" | "source" | "location" | "root" | "frontmatter";

/** A skill as the file keeps it (Omit over each member, so `kind` still tells the two apart). */
type KeptSkill = Skill extends infer S ? (S extends Skill ? Omit<S, Derived> : never) : never;

/** A snapshot read from disk: the header at once, the catalog on demand. */
export interface CatalogSnapshot {
  file: string;
  contentHash: string;
  /** The skills the instructions may name, most useful first. */
  named: NamedSkill[];
  /** Parse the catalog (undefined, with a debug log, when line 2 is malformed). */
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
 * What a listing (tools/list, prompts/list) waits for: nothing while the snapshot's catalog stands in
 * for the first scan, else the first scan. Calls and reads always wait for the scan (hub.ready).
 */
export function listingReady(hub: Hub): Promise<void> | undefined {
  return hub.store.provisional ? undefined : hub.ready;
}

/** Read the header; undefined (and a debug log unless the file is simply missing) when unusable. */
export function readSnapshot(file: string, logger: Logger): CatalogSnapshot | undefined {
  const ignored = (why: string) => {
    logger.debug(`catalog snapshot ignored (${file}): ${why}`);
    return undefined;
  };
  let line: string | undefined;
  try {
    line = firstLine(file);
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
  if (typeof header.contentHash !== "string" || !Array.isArray(header.named)) return ignored("malformed header");
  const named = header.named
    .filter(
      (s) => typeof s?.name === "string" && typeof s.description === "string" && typeof s.alwaysApply === "boolean",
    )
    .map((s): NamedSkill => ({ ...s, id: s.name, kind: s.kind === "tree-node" ? "tree-node" : "agent-skill" }));
  return {
    file,
    contentHash: header.contentHash,
    named,
    catalog: () => {
      try {
        const text = readFileSync(file, "utf8");
        return catalogOf(JSON.parse(text.slice(text.indexOf("\n") + 1)) as SnapshotBody);
      } catch (error) {
        return ignored(`malformed catalog: ${errorMessage(error)}`);
      }
    },
  };
}

/**
 * The file's first line, read in chunks: at 10,000 skills the whole file is megabytes, and reading it
 * before `initialize` is answered would cost what the snapshot saves. Undefined when no line ends.
 */
function firstLine(file: string): string | undefined {
  const fd = openSync(file, "r");
  try {
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
  } finally {
    closeSync(fd);
  }
}

/** The body's catalog; throws on a shape the Catalog constructor cannot take. */
function catalogOf(body: SnapshotBody): Catalog {
  if (!Array.isArray(body?.scans)) throw new Error("no scans");
  const scans: SourceScan[] = body.scans.map((scan) => {
    const source = scan?.source;
    if (typeof source?.label !== "string" || typeof source.dir !== "string" || !Array.isArray(scan.skills))
      throw new Error("a source without label, folder or skills");
    const skills = scan.skills.map((s): Skill => {
      if (typeof s?.name !== "string" || typeof s.id !== "string" || typeof s.description !== "string")
        throw new Error("a skill without name, id or description");
      if (typeof s.file !== "string" || !Array.isArray(s.tags)) throw new Error(`skill ${s.name}: no file or tags`);
      const derived = {
        key: s.name.toLowerCase(),
        source: source.label,
        location: source.location,
        root: source.dir,
        frontmatter: {},
      };
      return { ...s, ...derived } as Skill;
    });
    return { source, exists: scan.exists === true, dirCount: Number(scan.dirCount) || 0, skills, diagnostics: [] };
  });
  return new Catalog(scans, 0);
}

/** Skills written between two pauses of a save (saveSnapshot). */
const SKILLS_PER_PIECE = 250;

/**
 * The snapshot's two lines for `hub`'s current catalog, in pieces: the header line, then the body a
 * few hundred skills at a time (issue 16: written at once, 10,000 skills held the event loop 40 ms).
 */
export function* snapshotPieces(hub: Hub): Generator<string> {
  const catalog = hub.catalog;
  const named = catalog.skills
    .filter((s) => isEnabled(s, hub.filter))
    .sort(
      (a, b) =>
        Number(b.alwaysApply) - Number(a.alwaysApply) || (hub.usage.get(b.id) ?? 0) - (hub.usage.get(a.id) ?? 0),
    )
    .slice(0, NAMED_KEPT)
    .map((s) => ({ name: s.name, description: s.description, alwaysApply: s.alwaysApply, kind: s.kind }));
  const header: SnapshotHeader = { format: FORMAT, version: SNAPSHOT_VERSION, contentHash: catalog.contentHash, named };
  yield `${JSON.stringify(header)}\n`;
  const bySource = new Map<string, Skill[]>();
  for (const skill of catalog.skills) {
    const list = bySource.get(skill.source);
    if (list) list.push(skill);
    else bySource.set(skill.source, [skill]);
  }
  // The body as JSON.stringify writes a SnapshotBody, a source and a piece of its skills at a time.
  let separator = "";
  yield '{"scans":[';
  for (const s of catalog.sources) {
    const scan: Omit<SnapshotBody["scans"][number], "skills"> = {
      source: { label: s.label, dir: s.dir, location: s.location },
      exists: s.exists,
      dirCount: s.dirCount,
    };
    yield `${separator}${JSON.stringify(scan).slice(0, -1)},"skills":[`;
    separator = ",";
    const skills = bySource.get(s.label) ?? [];
    for (let from = 0; from < skills.length; from += SKILLS_PER_PIECE) {
      const piece = skills.slice(from, from + SKILLS_PER_PIECE).map((skill) => JSON.stringify(listed(skill)));
      yield `${from === 0 ? "" : ","}${piece.join(",")}`;
    }
    yield "]}";
  }
  yield "]}\n";
}

/** The snapshot's two lines for `hub`'s current catalog, whole. */
export function snapshotText(hub: Hub): string {
  return [...snapshotPieces(hub)].join("");
}

/**
 * What the file keeps of a skill: not the verbatim frontmatter (a listing does not need it; search
 * indexes the scanned catalog, never this one), nor what its source and name give back.
 */
function listed(skill: Skill): KeptSkill {
  const { key, source, location, root, frontmatter, ...kept } = skill;
  return kept;
}

/**
 * Keep `hub`'s current catalog for the next start (atomic write; failures only logged), awaiting
 * `pause` between pieces so that calls are answered meanwhile; the file is written off the event loop.
 */
export async function saveSnapshot(hub: Hub, file: string, pause: () => Promise<void> = nextTurn): Promise<void> {
  try {
    const pieces: string[] = [];
    for (const piece of snapshotPieces(hub)) {
      pieces.push(piece);
      await pause();
    }
    await writeAtomic(file, pieces);
  } catch (error) {
    hub.logger.debug(`catalog snapshot not kept (${file}): ${errorMessage(error)}`);
  }
}
