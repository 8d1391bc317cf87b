/**
 * The tree a git index describes, checked against the tree a signed commit names: the check that the
 * objects a copy's `.git` holds are the ones the commit names.
 *
 * Security: git checks an object's hash against its name when it parses a commit or the commit's root
 * tree, but not when it reads the trees below it (read-tree, checkout, ls-tree -r). Whoever can write a
 * copy can put a tree of their own under the name of a signed subtree (`.git/objects/xx/…`, a pack,
 * an alternate); a scratch index read from the signed commit then lists their files, and the copy,
 * rewritten to match, compares equal to it. Recomputing every tree's name from the index entries, as
 * `git write-tree` would, and requiring the root to be the signed commit's tree, ties every entry to the
 * signature whatever the object store holds. A signed tree git would not write that way (an entry of
 * mode 100664 from early git, an empty subtree, a zero-padded mode) is compared instead with what `git
 * ls-tree` lists of it, one tree at a time: git checks the hash of the one tree it is given.
 */

/** One entry of `git ls-files --stage`: mode (octal text), object name (hex) and path (bytes, "/" separated). */
export interface IndexEntry {
  mode: string;
  id: string;
  path: Uint8Array;
}

/**
 * The entries of a `git ls-files --stage` listing made with `core.quotePath=true` (a path holding
 * anything but printable ASCII comes C-quoted, so its bytes survive the text), or why it cannot be
 * used: an unmerged entry, a line of another shape. Pure.
 */
export function parseStage(listing: string): IndexEntry[] | string {
  const entries: IndexEntry[] = [];
  for (const line of listing.split("\n")) {
    if (line === "") continue;
    const m = /^([0-7]{6}) ([0-9a-f]{40}|[0-9a-f]{64}) ([0-3])\t(.+)$/.exec(line);
    if (!m) return `an index entry git printed is not understood: ${JSON.stringify(line.slice(0, 120))}`;
    if (m[3] !== "0") return `the index has an unmerged entry (${m[4]})`;
    const path = unquote(m[4] as string);
    if (path === undefined) return `an index path git printed is not understood: ${m[4]}`;
    entries.push({ mode: m[1] as string, id: m[2] as string, path });
  }
  return entries;
}

/** The files and folders of one folder of an index, by name (their bytes as latin1 text). */
interface Folder {
  files: Map<string, { name: Uint8Array; mode: string; id: string }>;
  folders: Map<string, { name: Uint8Array; folder: Folder }>;
}

/** The folders that `entries` make, from the root. Pure. */
function foldersOf(entries: readonly IndexEntry[]): Folder {
  const root: Folder = { files: new Map(), folders: new Map() };
  for (const entry of entries) {
    const parts = split(entry.path);
    let folder = root;
    for (const part of parts.slice(0, -1)) {
      const key = Buffer.from(part).toString("latin1");
      let next = folder.folders.get(key);
      if (!next) {
        next = { name: part, folder: { files: new Map(), folders: new Map() } };
        folder.folders.set(key, next);
      }
      folder = next.folder;
    }
    const name = parts[parts.length - 1] as Uint8Array;
    folder.files.set(Buffer.from(name).toString("latin1"), { name, mode: entry.mode, id: entry.id });
  }
  return root;
}

/**
 * The name git gives the tree of `folder`, written as git writes trees (entries in git's order, a
 * folder sorting as its name followed by "/", modes without leading zeros), hashed with `algorithm`.
 * `names` keeps every folder's, so that each is computed once. Pure.
 */
function nameOf(folder: Folder, algorithm: "sha1" | "sha256", names: Map<Folder, string>): string {
  const known = names.get(folder);
  if (known) return known;
  const items = [
    ...[...folder.files.values()].map((f) => ({
      name: f.name,
      mode: f.mode.replace(/^0+/, ""),
      id: f.id,
      tree: false,
    })),
    ...[...folder.folders.values()].map((d) => ({
      name: d.name,
      mode: "40000",
      id: nameOf(d.folder, algorithm, names),
      tree: true,
    })),
  ].sort((a, b) => gitOrder(a.name, a.tree, b.name, b.tree));
  const body = Buffer.concat(
    items.flatMap((item) => [
      Buffer.from(`${item.mode} `),
      Buffer.from(item.name),
      Buffer.from([0]),
      Buffer.from(item.id, "hex"),
    ]),
  );
  const hasher = new Bun.CryptoHasher(algorithm);
  hasher.update(`tree ${body.length}\0`);
  hasher.update(body);
  const name = hasher.digest("hex");
  names.set(folder, name);
  return name;
}

/**
 * The name of the root tree that `entries` make, computed as git writes trees, hashed with the
 * algorithm whose names are `idLength` hex digits long (40: SHA-1, 64: SHA-256). Pure.
 */
export function treeOf(entries: readonly IndexEntry[], idLength: 40 | 64): string {
  return nameOf(foldersOf(entries), idLength === 40 ? "sha1" : "sha256", new Map());
}

/** One entry of `git ls-tree <tree>`: mode (octal text, as git reads it: 100664 is 100644), object, name (bytes). */
export interface TreeEntry {
  mode: string;
  id: string;
  name: Uint8Array;
}

/**
 * Whether `entries` (an index read from a commit) are exactly the files of `tree`, the tree that commit
 * names. A folder whose recomputed name is its tree's name is proven by the hash; any other is compared
 * entry by entry with `list(id)`, which must give the entries of tree `id` as git read them with the
 * tree's hash checked (`git ls-tree <id>`), or undefined when it cannot. A subtree holding no file (an
 * empty one) is in no index, so it must hold none.
 */
export async function isTreeOf(
  entries: readonly IndexEntry[],
  tree: string,
  list: (id: string) => Promise<readonly TreeEntry[] | undefined>,
): Promise<boolean> {
  const algorithm = tree.length === 40 ? "sha1" : "sha256";
  const names = new Map<Folder, string>();
  const same = async (folder: Folder, id: string): Promise<boolean> => {
    if (nameOf(folder, algorithm, names) === id) return true;
    const listed = await list(id);
    if (!listed) return false;
    const seen = new Set<string>();
    for (const entry of listed) {
      const key = Buffer.from(entry.name).toString("latin1");
      if (seen.has(key)) return false;
      seen.add(key);
      if (entry.mode === "040000") {
        const sub = folder.folders.get(key)?.folder ?? { files: new Map(), folders: new Map() };
        if (!(await same(sub, entry.id))) return false;
        continue;
      }
      const file = folder.files.get(key);
      if (file?.mode !== entry.mode || file.id !== entry.id) return false;
    }
    return [...folder.files.keys(), ...folder.folders.keys()].every((key) => seen.has(key));
  };
  return same(foldersOf(entries), tree);
}

/**
 * The entries of a `git ls-tree <tree>` listing made with `core.quotePath=true`, or why it cannot be
 * used. Pure.
 */
export function parseTree(listing: string): TreeEntry[] | string {
  const entries: TreeEntry[] = [];
  for (const line of listing.split("\n")) {
    if (line === "") continue;
    const m = /^([0-7]{6}) (?:blob|tree|commit) ([0-9a-f]{40}|[0-9a-f]{64})\t(.+)$/.exec(line);
    const name = m ? unquote(m[3] as string) : undefined;
    if (!m || name === undefined)
      return `a tree entry git printed is not understood: ${JSON.stringify(line.slice(0, 120))}`;
    entries.push({ mode: m[1] as string, id: m[2] as string, name });
  }
  return entries;
}

/** git's order of tree entries: bytes compared, a folder's name as if followed by "/". */
function gitOrder(a: Uint8Array, aTree: boolean, b: Uint8Array, bTree: boolean): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  const slash = 0x2f;
  const ca = a.length > length ? (a[length] as number) : aTree ? slash : 0;
  const cb = b.length > length ? (b[length] as number) : bTree ? slash : 0;
  return ca - cb;
}

function split(path: Uint8Array): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let from = 0;
  for (let i = 0; i <= path.length; i++) {
    if (i === path.length || path[i] === 0x2f) {
      parts.push(path.subarray(from, i));
      from = i + 1;
    }
  }
  return parts;
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 0x22, "\\": 0x5c };

/** A path as git prints it: as is, or C-quoted with octal escapes for its bytes. Undefined when malformed. */
function unquote(text: string): Uint8Array | undefined {
  if (!text.startsWith('"')) return Buffer.from(text, "utf8");
  if (!text.endsWith('"') || text.length < 2) return undefined;
  const out: number[] = [];
  const inner = text.slice(1, -1);
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i] as string;
    if (c !== "\\") {
      out.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const next = inner[i + 1] ?? "";
    if (/[0-7]/.test(next)) {
      const octal = inner.slice(i + 1, i + 4);
      if (!/^[0-7]{3}$/.test(octal)) return undefined;
      out.push(Number.parseInt(octal, 8));
      i += 3;
      continue;
    }
    const escaped = ESCAPES[next];
    if (escaped === undefined) return undefined;
    out.push(escaped);
    i += 1;
  }
  return Uint8Array.from(out);
}
