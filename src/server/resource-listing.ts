import { type McpServer, ProtocolError, ProtocolErrorCode, type Resource } from "@modelcontextprotocol/server";
import { SKILL_LIMITS } from "@modelcontextprotocol/server/ext/skills";
import type { Catalog } from "../catalog/catalog.ts";
import { isEnabled } from "../catalog/filters.ts";
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, NAME_PATTERN } from "../skills/agent-skill.ts";
import { frontmatterOf } from "../skills/frontmatter.ts";
import type { Skill } from "../skills/skill.ts";
import { listSkillFiles } from "../sources/skill-files.ts";
import type { FolderEntry } from "../sources/walk-listings.ts";
import { listingReady } from "./catalog-snapshot.ts";
import type { Hub } from "./hub.ts";
import { paginate } from "./paging.ts";
import { type Publication, publicationIfBuilt, walkRefusal } from "./skills-extension/publication.ts";
import { skillRoot } from "./skills-extension/uris.ts";

/** Resources per resources/list page. */
export const RESOURCES_PAGE_SIZE = 100;

/** A page's candidates are looked at in order until the page is full: at most this many (a page never takes long). */
const CANDIDATES_PER_PAGE_MAX = 1000;

/** A SKILL.md resource as resources/list lists it. */
type Listed = Resource & { uri: string };

interface Candidate {
  uri: string;
  skill: Skill;
}

/** Per catalog: its candidates in URI order, and each one's verdict once looked at. */
interface Listing {
  candidates: Candidate[];
  verdicts: Map<Skill, boolean>;
  /** The frozen guard's lock generation the verdicts were made with. */
  generation: number;
}

const listings = new WeakMap<Catalog, Listing>();

/**
 * `resources/list`, paged (100 a page): each served skill's `SKILL.md` as the skills extension publishes
 * it (`skill://<name>/SKILL.md`, text/markdown, its name and description), in URI order. A page looks
 * only at its own skills: at 10,000 skills the whole listing in one answer was 3.9 MB and took 4.9 s,
 * because it built the extension's publication first, every file of every skill read and digested.
 * Which skills the extension publishes is decided here from what the scan already knows (the
 * frontmatter's parse, its diagnostics, the folder's listing); once the publication is built
 * (skills/list, a resource read), the listing is its own.
 */
export function registerResourceListing(mcp: McpServer, hub: Hub): void {
  mcp.server.setRequestHandler("resources/list", async (request) => {
    await listingReady(hub);
    const cursor = request.params?.cursor;
    const built = publicationIfBuilt(hub.catalog, hub.frozen);
    const page = built ? publishedPage(built, cursor) : listedPage(hub, cursor);
    // The last page ends a listing of every skill (a client at start): a big job, whose garbage goes back.
    if (!page.nextCursor) hub.memory.soon();
    return { resources: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  });
}

function publishedPage(pub: Publication, cursor: string | undefined) {
  const all = pub.skills.map(({ entry }) => listed(entry.uri, entry.frontmatter.name, entry.frontmatter.description));
  return paginate(all, cursor, RESOURCES_PAGE_SIZE, (r) => r.uri);
}

/** One page from the catalog: the candidates after `cursor`, each looked at once per catalog. */
function listedPage(hub: Hub, cursor: string | undefined): { items: Listed[]; nextCursor?: string } {
  const listing = listingOf(hub.catalog);
  // Frozen: a changed lock vouches for other skills, so verdicts are made again.
  const generation = hub.frozen?.generation() ?? 0;
  if (listing.generation !== generation) listing.verdicts = new Map();
  listing.generation = generation;
  const { candidates, verdicts } = listing;
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  let start = 0;
  if (after !== undefined) {
    // Binary search: candidates are in URI order.
    let low = 0;
    let high = candidates.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((candidates[mid] as Candidate).uri <= after) low = mid + 1;
      else high = mid;
    }
    start = low;
  }
  const items: Listed[] = [];
  let at = start;
  for (; at < candidates.length && items.length < RESOURCES_PAGE_SIZE && at - start < CANDIDATES_PER_PAGE_MAX; at++) {
    const { uri, skill } = candidates[at] as Candidate;
    let verdict = verdicts.get(skill);
    if (verdict === undefined) {
      // isEnabled: the server's filters, and in frozen mode the lock (catalog/filters.ts).
      verdict = isEnabled(skill, hub.filter) && publishable(hub.catalog, skill, hub);
      verdicts.set(skill, verdict);
    }
    if (verdict) items.push(listed(uri, skill.name, skill.description));
  }
  const last = candidates[at - 1];
  return at < candidates.length && last ? { items, nextCursor: encodeCursor(last.uri) } : { items };
}

function listingOf(catalog: Catalog): Listing {
  let listing = listings.get(catalog);
  if (!listing) {
    // As the publication names them: a served skill by its name, a shadowed one under its source's label.
    const candidates: Candidate[] = [];
    for (const skill of catalog.skills)
      if (skill.kind === "agent-skill") candidates.push({ uri: manifestUri([], skill.name), skill });
    for (const { skill } of catalog.reachableShadowed())
      if (skill.kind === "agent-skill") candidates.push({ uri: manifestUri([skill.source], skill.name), skill });
    candidates.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
    listing = { candidates, verdicts: new Map(), generation: 0 };
    listings.set(catalog, listing);
  }
  return listing;
}

/** `skill://<name>/SKILL.md` (uris.ts), built directly for a name that needs no escaping (almost every one). */
function manifestUri(prefix: readonly string[], name: string): string {
  return prefix.length === 0 && PLAIN_NAME.test(name)
    ? `skill://${name}/SKILL.md`
    : skillRoot(prefix, name).file("SKILL.md");
}

/** Characters encodeURIComponent leaves as they are. */
const PLAIN_NAME = /^[A-Za-z0-9_.!~*'()-]+$/;

function listed(uri: string, name: string, description: string): Listed {
  return { uri, name, description, mimeType: "text/markdown" };
}

/**
 * Whether the skills extension publishes `skill` (publication.ts), from what the scan knows: a
 * SKILL.md whose frontmatter parsed without repair, with the name it declares following the Agent
 * Skills rules, a description of 1-1024 characters, `compatibility` a string of 1-500 and `metadata`
 * a map of strings (the SDK's checks); and a folder with no links or special files, within the
 * extension's 512 files and 16 MiB.
 */
export function publishable(catalog: Catalog, skill: Skill, hub?: Pick<Hub, "knownEntries">): boolean {
  if (skill.file !== `${skill.dir}/SKILL.md`) return false;
  const repaired = catalog
    .diagnosticsFor(skill.file)
    .some((d) => d.code === "yaml-recovered" || d.code === "missing-name" || d.severity === "error");
  if (repaired) return false;
  let fm: Record<string, unknown>;
  try {
    fm = frontmatterOf(skill);
  } catch {
    return false;
  }
  const { name, description, compatibility, metadata } = fm;
  if (typeof name !== "string" || name !== skill.name || name.length > MAX_NAME_LENGTH || !NAME_PATTERN.test(name))
    return false;
  if (typeof description !== "string" || description === "" || codePoints(description) > MAX_DESCRIPTION_LENGTH)
    return false;
  if (
    compatibility !== undefined &&
    (typeof compatibility !== "string" || compatibility === "" || codePoints(compatibility) > 500)
  )
    return false;
  if (
    metadata !== undefined &&
    (typeof metadata !== "object" ||
      metadata === null ||
      Array.isArray(metadata) ||
      Object.values(metadata).some((v) => typeof v !== "string"))
  )
    return false;
  return folderWithinLimits(skill, hub);
}

/** No links or special files, at most 512 files and 16 MiB: the scan's listing when it holds SKILL.md alone. */
function folderWithinLimits(skill: Skill, hub?: Pick<Hub, "knownEntries">): boolean {
  const known = hub?.knownEntries(skill.dir);
  if (known) {
    const entries = [...known] as FolderEntry[];
    if (entries.length === 1 && entries[0]?.name === "SKILL.md" && entries[0].kind === "file")
      return skill.size <= SKILL_LIMITS.bytes;
  }
  // The one walker, as the publication lists the folder (publication.ts walkRefusal).
  const listing = listSkillFiles(skill.dir, {
    max: 2 * SKILL_LIMITS.files,
    knownEntries: hub ? (folder) => hub.knownEntries(folder) : undefined,
  });
  return walkRefusal(listing) === undefined;
}

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function encodeCursor(uri: string): string {
  return Buffer.from(`after:${uri}`).toString("base64url");
}

function decodeCursor(cursor: string): string {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  if (!text.startsWith("after:"))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      "Invalid cursor: pass back a nextCursor from this server.",
    );
  return text.slice(6);
}
