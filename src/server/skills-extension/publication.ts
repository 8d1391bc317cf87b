import type { Resource } from "@modelcontextprotocol/server";
import { SKILL_LIMITS, type Skill as SkillEntry, skillEntry } from "@modelcontextprotocol/server/ext/skills";
import type { Catalog } from "../../catalog/catalog.ts";
import type { Skill } from "../../skills/skill.ts";
import { errorMessage } from "../../util/errors.ts";
import { nextTurn } from "../../util/next-turn.ts";
import { fileDigest } from "./digest.ts";
import { mimeTypeFor } from "./mime.ts";
import { readSkillFile, walkSkillFolder } from "./skill-files.ts";
import { skillRoot, uriKey } from "./uris.ts";

/** One file the extension serves, with the digest and size it was published with. */
export interface PublishedFile {
  uri: string;
  dir: string;
  path: string;
  size: number;
  digest: string;
  mimeType: string;
}

/** A skill served by the extension. */
export interface PublishedSkill {
  skill: Skill;
  entry: SkillEntry;
}

/** A skill the tools serve but the extension does not, and why (for doctor and the log). */
export interface Unpublished {
  skill: Skill;
  reason: string;
}

/**
 * What the extension serves for one catalog snapshot: entries in URI order,
 * files and directories by URI. Built once per snapshot from the bytes on
 * disk, so every digest a client sees belongs to that snapshot; a file found
 * changed on read drops the publication (see `invalidate`) and the next
 * request builds a new one.
 */
export interface Publication {
  skills: PublishedSkill[];
  bySkillUri: Map<string, PublishedSkill>;
  files: Map<string, PublishedFile>;
  dirs: Map<string, Resource[]>;
  unpublished: Unpublished[];
}

const cache = new WeakMap<Catalog, Promise<Publication>>();
/** Publications whose build has ended, by snapshot (publicationIfBuilt). */
const finished = new WeakMap<Catalog, Publication>();

/** The publication of a snapshot, built on first use and shared by every server over the hub. */
export function publication(catalog: Catalog, enabled: (skill: Skill) => boolean = () => true): Promise<Publication> {
  let built = cache.get(catalog);
  if (!built) {
    const building = build(catalog, enabled);
    built = building;
    void building.then(
      (pub) => cache.get(catalog) === building && finished.set(catalog, pub),
      () => undefined,
    );
    cache.set(catalog, built);
  }
  return built;
}

/** A snapshot's publication when it is already built (resources/list then lists it), else undefined: never builds one. */
export function publicationIfBuilt(catalog: Catalog): Publication | undefined {
  return finished.get(catalog);
}

/** Forget a snapshot's publication: a file changed under it. */
export function invalidate(catalog: Catalog): void {
  cache.delete(catalog);
  finished.delete(catalog);
}

async function build(catalog: Catalog, enabled: (skill: Skill) => boolean): Promise<Publication> {
  const result: Publication = { skills: [], bySkillUri: new Map(), files: new Map(), dirs: new Map(), unpublished: [] };
  // Served skills keep skill://<name>; a shadowed one gets its source as prefix, so it keeps a distinct URI.
  const candidates = [
    ...catalog.skills.map((skill) => ({ skill, prefix: [] as string[] })),
    ...catalog.shadowed.map(({ skill }) => ({ skill, prefix: [skill.source] })),
  ];
  let n = 0;
  for (const { skill, prefix } of candidates) {
    // Yield now and then: a big catalog must not stall requests in flight.
    if (++n % 50 === 0) await nextTurn();
    if (!enabled(skill)) continue;
    if (skill.kind !== "agent-skill") {
      result.unpublished.push({ skill, reason: "a skill-tree node, not an Agent Skill folder" });
      continue;
    }
    const outcome = await publishOne(skill, prefix);
    if ("reason" in outcome) {
      result.unpublished.push({ skill, reason: outcome.reason });
      continue;
    }
    result.skills.push(outcome.published);
    result.bySkillUri.set(uriKey(outcome.published.entry.uri), outcome.published);
    for (const f of outcome.files) result.files.set(uriKey(f.uri), f);
    for (const [uri, children] of outcome.dirs) result.dirs.set(uriKey(uri), children);
  }
  result.skills.sort((a, b) => (a.entry.uri < b.entry.uri ? -1 : a.entry.uri > b.entry.uri ? 1 : 0));
  return result;
}

type Outcome =
  | { published: PublishedSkill; files: PublishedFile[]; dirs: Map<string, Resource[]> }
  | { reason: string };

async function publishOne(skill: Skill, prefix: string[]): Promise<Outcome> {
  const manifestName = skill.file.slice(skill.dir.length + 1);
  if (manifestName !== "SKILL.md") return { reason: `its manifest is ${manifestName}; the extension serves SKILL.md` };
  const root = skillRoot(prefix, skill.name);
  let frontmatter: SkillEntry["frontmatter"];
  try {
    // The SDK's strict parser and the Agent Skills rules: what a host verifying the entry will check.
    const strict = await skillEntry(root.path, { "SKILL.md": readSkillFile(skill.dir, "SKILL.md") });
    frontmatter = strict.frontmatter;
  } catch (error) {
    const problems = (error as { problems?: { message: string }[] }).problems;
    const why = problems ? problems.map((p) => p.message).join("; ") : errorMessage(error);
    return { reason: `${why} (the extension serves frontmatter verbatim, so it must pass the strict check)` };
  }
  const walk = walkSkillFolder(skill.dir, { maxFiles: SKILL_LIMITS.files, maxBytes: SKILL_LIMITS.bytes });
  if (walk.kind === "refused") return { reason: `not published: ${walk.reason}` };
  const files: PublishedFile[] = [];
  let total = 0;
  for (const ref of walk.files) {
    let bytes: Uint8Array;
    try {
      bytes = readSkillFile(skill.dir, ref.path);
    } catch (error) {
      return { reason: `${ref.path} cannot be read (${errorMessage(error)})` };
    }
    total += bytes.byteLength;
    if (total > SKILL_LIMITS.bytes)
      return {
        reason: `not published: its files total more than ${SKILL_LIMITS.bytes} bytes (16 MiB, the extension's limit per skill)`,
      };
    const name = ref.path.slice(ref.path.lastIndexOf("/") + 1);
    files.push({
      uri: root.file(ref.path),
      dir: skill.dir,
      path: ref.path,
      size: bytes.byteLength,
      digest: fileDigest(bytes),
      mimeType: mimeTypeFor(name),
    });
  }
  const dirs = new Map<string, Resource[]>();
  for (const d of ["", ...walk.dirs]) dirs.set(root.dir(d), []);
  for (const d of walk.dirs) childrenOf(dirs, root.dir(parentOf(d))).push(directory(root.dir(d), d));
  for (const f of files) {
    const name = f.path.slice(f.path.lastIndexOf("/") + 1);
    childrenOf(dirs, root.dir(parentOf(f.path))).push({ uri: f.uri, name, mimeType: f.mimeType, size: f.size });
  }
  const entry: SkillEntry = {
    uri: root.file("SKILL.md"),
    frontmatter,
    resources: files.map((f) => ({ uri: f.uri, digest: f.digest, size: f.size })),
  };
  return { published: { skill, entry }, files, dirs };
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

function childrenOf(dirs: Map<string, Resource[]>, uri: string): Resource[] {
  let children = dirs.get(uri);
  if (!children) {
    children = [];
    dirs.set(uri, children);
  }
  return children;
}

function directory(uri: string, path: string): Resource {
  return { uri, name: path.slice(path.lastIndexOf("/") + 1), mimeType: "inode/directory" };
}
