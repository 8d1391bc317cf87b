import { realpathSync } from "node:fs";
import type { Resource } from "@modelcontextprotocol/server";
import { SKILL_LIMITS, type Skill as SkillEntry, skillEntry } from "@modelcontextprotocol/server/ext/skills";
import { type Catalog, normalForm } from "../../catalog/catalog.ts";
import { digestFile } from "../../catalog/digests.ts";
import type { FrozenGuard } from "../../lock/frozen.ts";
import type { Skill } from "../../skills/skill.ts";
import { pathUnder, SKILL_URI_SCHEME, skillRoot, skillUris, uriKey } from "../../skills/skill-uri.ts";
import { listSkillFiles, type SkillFileList } from "../../sources/skill-files.ts";
import { errorMessage } from "../../util/errors.ts";
import { mimeTypeFor } from "../../util/file-kind.ts";
import { nextTurn } from "../../util/next-turn.ts";
import { fileDigest } from "./digest.ts";
import { readSkillFile } from "./skill-files.ts";

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
 * What the extension serves for one catalog snapshot: entries in URI order, and the skills it leaves
 * to the tools. Each skill's entry is made once per snapshot from the bytes on disk (skillOutcome), when
 * a read names it or a listing needs it, so every digest a client sees belongs to that snapshot; a file
 * found changed on read drops them (see `invalidate`) and the next request makes them again.
 */
export interface Publication {
  skills: PublishedSkill[];
  unpublished: Unpublished[];
}

/** One skill's part: its entry, files and directories by URI key (uriKey); or why it is not published. */
export type SkillOutcome =
  | { published: PublishedSkill; files: Map<string, PublishedFile>; dirs: Map<string, Resource[]> }
  | { reason: string };

/** How a publication is built: which skills, and in frozen mode the guard every digest is compared with. */
export interface PublicationOptions {
  enabled?: (skill: Skill) => boolean;
  frozen?: FrozenGuard;
}

const cache = new WeakMap<Catalog, { generation: number; built: Promise<Publication> }>();
/** Each skill's outcome, by snapshot and (frozen) lock generation: a read makes only its skill's. */
const outcomes = new WeakMap<Catalog, { generation: number; bySkill: Map<Skill, Promise<SkillOutcome>> }>();
const claims = new WeakMap<Catalog, Map<string, Set<string>>>();

/**
 * The folders of served skills whose URIs another skill's root holds: `skill://team/git-helper` is the
 * shadowed git-helper of source `team`, and would be folder `git-helper` of a skill named `team`;
 * `skill://ops/deploy` is tree node `ops/deploy`, and would be folder `deploy` of a skill named `ops`. By the
 * served skill's root, each folder as a path under it; such a folder is left out of that skill's entry,
 * so no URI names two files.
 */
export function claimedFolders(catalog: Catalog, skill: Skill, shadowed: boolean): ReadonlySet<string> | undefined {
  if (shadowed) return undefined;
  let byRoot = claims.get(catalog);
  if (!byRoot) {
    byRoot = new Map<string, Set<string>>();
    const claiming = [
      ...catalog.reachableShadowed().map(({ skill: other }) => skillUris(other, true)),
      ...catalog.skills.filter((other) => other.name.includes("/")).map((other) => skillUris(other, false)),
    ];
    for (const uris of claiming) {
      const root = uriKey(uris.dir(""));
      for (let cut = root.indexOf("/", SKILL_URI_SCHEME.length); cut > 0; cut = root.indexOf("/", cut + 1)) {
        const parent = root.slice(0, cut);
        const folder = pathUnder(parent, root);
        if (folder === undefined) continue;
        const folders = byRoot.get(parent) ?? new Set<string>();
        folders.add(folder);
        byRoot.set(parent, folders);
      }
    }
    claims.set(catalog, byRoot);
  }
  return byRoot.get(uriKey(skillUris(skill, false).dir("")));
}

/** Whether `path` (under a skill's folder) lies in one of its `claimed` folders. */
export function isClaimed(claimed: ReadonlySet<string> | undefined, path: string): boolean {
  if (!claimed) return false;
  for (let cut = path.indexOf("/"); cut > 0; cut = path.indexOf("/", cut + 1))
    if (claimed.has(path.slice(0, cut))) return true;
  return claimed.has(path);
}

/** Publications whose build has ended, by snapshot (publicationIfBuilt). */
const finished = new WeakMap<Catalog, { generation: number; publication: Publication }>();

/**
 * The publication of a snapshot, built on first use and shared by every server over the hub; frozen, built
 * again when a lock changes (what the lock vouches for decides what is published).
 */
export function publication(catalog: Catalog, options: PublicationOptions = {}): Promise<Publication> {
  const generation = options.frozen?.generation() ?? 0;
  let entry = cache.get(catalog);
  if (!entry || entry.generation !== generation) {
    const building = build(catalog, options);
    const current = { generation, built: building };
    entry = current;
    void building.then(
      (pub) => cache.get(catalog) === current && finished.set(catalog, { generation, publication: pub }),
      () => undefined,
    );
    cache.set(catalog, entry);
  }
  return entry.built;
}

/**
 * A snapshot's publication when it is already built for the lock as it is now (resources/list then lists
 * it), else undefined: never builds one.
 */
export function publicationIfBuilt(catalog: Catalog, frozen?: FrozenGuard): Publication | undefined {
  const done = finished.get(catalog);
  return done && done.generation === (frozen?.generation() ?? 0) ? done.publication : undefined;
}

/** Forget a snapshot's publication: a file changed under it. */
export function invalidate(catalog: Catalog): void {
  cache.delete(catalog);
  finished.delete(catalog);
  outcomes.delete(catalog);
}

/**
 * What the extension makes of one skill of `catalog` (served, or reached by its qualified name when
 * `shadowed`): made once per snapshot and lock generation, shared by reads and the whole publication.
 */
export function skillOutcome(
  catalog: Catalog,
  skill: Skill,
  shadowed: boolean,
  frozen: FrozenGuard | undefined,
): Promise<SkillOutcome> {
  const generation = frozen?.generation() ?? 0;
  let entry = outcomes.get(catalog);
  if (!entry || entry.generation !== generation) {
    entry = { generation, bySkill: new Map() };
    outcomes.set(catalog, entry);
  }
  let outcome = entry.bySkill.get(skill);
  if (!outcome) {
    const claimed = claimedFolders(catalog, skill, shadowed);
    outcome =
      skill.kind === "agent-skill"
        ? // Security: one broken skill (gone, unreadable, nested past PATH_MAX) never breaks the others' listing.
          publishOne(skill, shadowed ? [skill.source] : [], frozen, claimed).catch(() => ({
            reason: "its folder could not be read",
          }))
        : Promise.resolve({ reason: "a skill-tree node, not an Agent Skill folder" });
    entry.bySkill.set(skill, outcome);
  }
  return outcome;
}

/**
 * The skills whose URIs `uri` lies among, the file's path under each ("" for the skill's own folder),
 * and `key`, the uriKey of that file under the skill's URIs as published: `skill://<name>/<path>` for
 * the skill its name reaches, `skill://<source>/<name>/<path>` for one a same-named skill shadows, where
 * a name may be several segments (a tree node's `ops/deploy`), written in either Unicode normal form
 * (`skill://cafe%CC%81` is `skill://caf%C3%A9`'s skill, and `key` starts with the latter). Several
 * can match (a skill named like a source's label, a tree node under a skill's name): the longest root
 * comes first (the shadowed skill's of equal length), and a caller that finds nothing there asks the
 * next. Two shadowed skills share a root when their sources' labels are written alike (`my.team`,
 * `my_team`). Looked up by name, one lookup per segment of the deepest root at most: no walk of the catalog.
 */
export function skillsAt(
  catalog: Catalog,
  uri: string,
): { skill: Skill; shadowed: boolean; path: string; root: string; key: string }[] {
  const key = uriKey(uri);
  if (!key.startsWith(SKILL_URI_SCHEME)) return [];
  const segments = key.slice(SKILL_URI_SCHEME.length).split("/").map(decoded);
  if (segments.some((s) => s === undefined)) return [];
  const names = segments as string[];
  const { shadowedByName, deepest } = namesOf(catalog);
  const candidates: { skill: Skill; shadowed: boolean }[] = [];
  // Security: a URI longer than any skill's root is looked up from the deepest root down only; each
  // lookup joins the segments it names, so a client's URI of many segments would otherwise cost their square.
  for (let length = Math.min(names.length, deepest); length >= 1; length--) {
    for (const skill of shadowedByName.get(normalForm(names.slice(1, length).join("/"))) ?? [])
      candidates.push({ skill, shadowed: true });
    const served = catalog.get(names.slice(0, length).join("/"));
    if (served && catalog.get(served.name) === served) candidates.push({ skill: served, shadowed: false });
  }
  return candidates.flatMap(({ skill, shadowed }) => {
    const uris = skillUris(skill, shadowed);
    const root = uriKey(uris.dir(""));
    const path = pathBelow(root, names);
    return path === undefined ? [] : [{ skill, shadowed, path, root, key: uriKey(uris.file(path)) }];
  });
}

/**
 * The path `names` (a URI's decoded segments) name under the skill URI `root`, each segment of the root
 * matched as written or in the other Unicode normal form; undefined when they lie elsewhere.
 */
function pathBelow(root: string, names: readonly string[]): string | undefined {
  const segments = root.slice(SKILL_URI_SCHEME.length).split("/").map(decodeURIComponent);
  if (segments.length > names.length) return undefined;
  const sameName = (segment: string, i: number) =>
    segment === names[i] || normalForm(segment) === normalForm(names[i] ?? "");
  return segments.every(sameName) ? names.slice(segments.length).join("/") : undefined;
}

/** Per snapshot: the reachable shadowed skills by name, and how many segments the longest skill root has. */
const rootNames = new WeakMap<Catalog, { shadowedByName: Map<string, Skill[]>; deepest: number }>();

function namesOf(catalog: Catalog): { shadowedByName: Map<string, Skill[]>; deepest: number } {
  let known = rootNames.get(catalog);
  if (!known) {
    const shadowedByName = new Map<string, Skill[]>();
    let deepest = 0;
    for (const skill of catalog.skills) deepest = Math.max(deepest, skill.name.split("/").length);
    for (const { skill } of catalog.reachableShadowed()) {
      const name = normalForm(skill.name);
      shadowedByName.set(name, [...(shadowedByName.get(name) ?? []), skill]);
      // Under its source's label: one segment more.
      deepest = Math.max(deepest, skill.name.split("/").length + 1);
    }
    known = { shadowedByName, deepest };
    rootNames.set(catalog, known);
  }
  return known;
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

async function build(catalog: Catalog, options: PublicationOptions): Promise<Publication> {
  const enabled = options.enabled ?? (() => true);
  const result: Publication = { skills: [], unpublished: [] };
  // Served skills keep skill://<name>; a shadowed one gets its source as prefix, so it keeps a distinct URI.
  const candidates = [
    ...catalog.skills.map((skill) => ({ skill, shadowed: false })),
    ...catalog.reachableShadowed().map(({ skill }) => ({ skill, shadowed: true })),
  ];
  const uris = new Set<string>();
  let n = 0;
  for (const { skill, shadowed } of candidates) {
    // Yield now and then: a big catalog must not stall requests in flight.
    if (++n % 50 === 0) await nextTurn();
    if (!enabled(skill)) continue;
    const outcome = await skillOutcome(catalog, skill, shadowed, options.frozen);
    if ("reason" in outcome) result.unpublished.push({ skill, reason: outcome.reason });
    else if (uris.has(uriKey(outcome.published.entry.uri)))
      // Two source labels written alike in a URI (`my.team`, `my_team`): the first keeps it.
      result.unpublished.push({ skill, reason: `its URI ${outcome.published.entry.uri} is already another skill's` });
    else {
      uris.add(uriKey(outcome.published.entry.uri));
      result.skills.push(outcome.published);
    }
  }
  result.skills.sort((a, b) => (a.entry.uri < b.entry.uri ? -1 : a.entry.uri > b.entry.uri ? 1 : 0));
  return result;
}

/**
 * One skill's entry: its files as the one walker lists them (sources/skill-files.ts), within the
 * extension's limits and without links or special files. SKILL.md is read once, and its frontmatter
 * parsed from the bytes whose digest is published; every other file's digest comes from the digest
 * cache (resources/read hashes what it serves and compares it with the published digest). Frozen, a
 * SKILL.md whose bytes the lock does not record keeps the skill unpublished, and a file the lock does not
 * record with that digest is left out.
 */
async function publishOne(
  skill: Skill,
  prefix: string[],
  frozen: FrozenGuard | undefined,
  claimed?: ReadonlySet<string>,
): Promise<SkillOutcome> {
  const manifestName = skill.file.slice(skill.dir.length + 1);
  if (manifestName !== "SKILL.md") return { reason: `its manifest is ${manifestName}; the extension serves SKILL.md` };
  const root = skillRoot(prefix, skill.name);
  const listing = listSkillFiles(skill.dir, { max: 2 * SKILL_LIMITS.files });
  const refused = walkRefusal(listing);
  if (refused) return { reason: `not published: ${refused}` };
  const manifest = readSkillFile(skill.dir, "SKILL.md");
  const manifestDigest = fileDigest(manifest);
  if (frozen?.checkRead(skill, null, manifestDigest.slice("sha256:".length)))
    return { reason: "its SKILL.md differs from the lock (frozen)" };
  let frontmatter: SkillEntry["frontmatter"];
  try {
    // The SDK's strict parser and the Agent Skills rules: what a host verifying the entry will check.
    const strict = await skillEntry(root.path, { "SKILL.md": manifest });
    frontmatter = strict.frontmatter;
  } catch (error) {
    const problems = (error as { problems?: { message: string }[] }).problems;
    const why = problems ? problems.map((p) => p.message).join("; ") : errorMessage(error);
    return { reason: `${why} (the extension serves frontmatter verbatim, so it must pass the strict check)` };
  }
  const real = realpathSync(skill.dir);
  const files: PublishedFile[] = [publishedFile(root, skill, "SKILL.md", manifest.byteLength, manifestDigest)];
  let total = manifest.byteLength;
  for (const ref of listing.files) {
    if (isClaimed(claimed, ref.path)) continue;
    const digest = digestFile(real, ref.path);
    if (!digest) return { reason: `${ref.path} cannot be read` };
    total += digest.size;
    if (total > SKILL_LIMITS.bytes) return { reason: `not published: ${TOO_MANY_BYTES}` };
    if (frozen?.checkRead(skill, ref.path, digest.digest.slice("sha256:".length))) continue;
    files.push(publishedFile(root, skill, ref.path, digest.size, digest.digest));
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const dirs = new Map<string, Resource[]>();
  const folders = listing.folders.filter((d) => !isClaimed(claimed, d)).sort();
  for (const d of ["", ...folders]) dirs.set(uriKey(root.dir(d)), []);
  for (const d of folders) childrenOf(dirs, uriKey(root.dir(parentOf(d)))).push(directory(root.dir(d), d));
  for (const f of files) {
    const name = f.path.slice(f.path.lastIndexOf("/") + 1);
    const child = { uri: f.uri, name, mimeType: f.mimeType, size: f.size };
    childrenOf(dirs, uriKey(root.dir(parentOf(f.path)))).push(child);
  }
  const entry: SkillEntry = {
    uri: root.file("SKILL.md"),
    frontmatter,
    resources: files.map((f) => ({ uri: f.uri, digest: f.digest, size: f.size })),
  };
  return { published: { skill, entry }, files: new Map(files.map((f) => [uriKey(f.uri), f])), dirs };
}

const TOO_MANY_BYTES = `its files total more than ${SKILL_LIMITS.bytes} bytes (16 MiB, the extension's limit per skill)`;

/** Why the extension does not publish a folder so listed, or undefined. */
export function walkRefusal(listing: SkillFileList): string | undefined {
  const link = listing.links[0];
  if (link !== undefined) return `${link} is a symlink; copy the file instead`;
  const special = listing.specials[0];
  if (special !== undefined) return `${special} is not a regular file`;
  const unreadable = listing.unreadable[0];
  if (unreadable !== undefined) return `folder ${unreadable || "."} cannot be read`;
  if (listing.truncated || listing.files.length + 1 > SKILL_LIMITS.files)
    return `it has more than ${SKILL_LIMITS.files} files (the extension's limit per skill)`;
  if (listing.files.reduce((n, f) => n + f.size, 0) > SKILL_LIMITS.bytes) return TOO_MANY_BYTES;
  return undefined;
}

function publishedFile(
  root: ReturnType<typeof skillRoot>,
  skill: Skill,
  path: string,
  size: number,
  digest: string,
): PublishedFile {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return { uri: root.file(path), dir: skill.dir, path, size, digest, mimeType: mimeTypeFor(name) };
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
