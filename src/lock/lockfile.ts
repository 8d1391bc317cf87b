import { basename, dirname } from "node:path";
import { z } from "zod";
import { compareText, SHA256 } from "../catalog/digests.ts";
import { isGitRef } from "../config/schema-values.ts";
import { writeAtomicSync } from "../util/atomic-write.ts";
import { readConfinedText } from "../util/confined-read.ts";
import { errorMessage, SkillHubError } from "../util/errors.ts";
import { once } from "../util/once.ts";
import { shownArg, shownText } from "../util/shown-arg.ts";
import { statOf } from "../util/stat.ts";

/**
 * skillhub.lock: what was reviewed. JSON with sorted keys and two-space
 * indentation, so that a change is a readable diff; no machine paths (skill
 * paths are relative to their source, sources are named by label and URL), so
 * the same lock verifies on every teammate's machine and in CI.
 */

export const LOCKFILE_NAME = "skillhub.lock";
export const LOCKFILE_VERSION = 1;

const Digest = () => z.string().regex(SHA256, "expected sha256:<64 lower-case hex>");
const Commit = () => z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "expected a full commit hash");

/**
 * `z.record(z.string(), value)` whose result has no prototype (emptyRecord). Security: zod builds a record
 * by assignment, so an entry named `__proto__` (a file of that name, parsed from JSON as an own key) would
 * set the record's prototype instead of being an entry: dropped from the lock, and its value inherited by
 * every lookup that is not an own-key one.
 */
function namedRecord<T extends z.ZodType>(value: T) {
  return z
    .custom<Record<string, unknown>>((input) => typeof input === "object" && input !== null && !Array.isArray(input), {
      message: "expected an object",
    })
    .transform((input, ctx) => {
      const out = emptyRecord<z.output<T>>();
      for (const key of Object.keys(input)) {
        const parsed = value.safeParse(input[key]);
        if (parsed.success) out[key] = parsed.data;
        else for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: [key, ...issue.path] } as never);
      }
      return out;
    });
}

/** One git source: where it comes from, what it follows, and the commit reviewed. */
export const LockedSource = once(() =>
  z.strictObject({
    /** The repository URL without credentials. */
    url: z.string().min(1),
    /**
     * The configured tag, commit or (when nothing is pinned) branch. Security: a name git takes for a ref, never
     * for an option (`--upload-pack=…`); a frozen sync would otherwise not know what to pin, and take the tip.
     */
    ref: z.string().refine(isGitRef, "expected a branch, tag or full commit name"),
    commit: Commit(),
    /**
     * The digest of the repository's own settings file, `config.yaml` at its root, as the copy of `commit`
     * holds it; absent when it has none. A frozen server applies no other (config/load.ts).
     */
    config: Digest().optional(),
  }),
);
export type LockedSource = z.infer<ReturnType<typeof LockedSource>>;

/** One served skill: its source, its path inside the source, and the digests of its files. */
export const LockedSkill = once(() =>
  z.strictObject({
    name: z.string().min(1),
    source: z.string().min(1),
    kind: z.enum(["agent-skill", "tree-node"]),
    /** The skill's file relative to its source root ("/" separators), e.g. `pdf/SKILL.md`. */
    path: z.string().min(1),
    skill_md: Digest(),
    /** Relative "/" path inside the skill's folder → digest (every file the one walker lists, sources/skill-files.ts). */
    files: namedRecord(Digest()),
    /**
     * Set when the skill has more files and folders than a lock records (catalog/digests.ts,
     * LOCKED_ENTRIES_MAX): `files` is then empty, and a frozen server refuses the skill.
     */
    too_large: z.literal(true).optional(),
  }),
);
export type LockedSkill = z.infer<ReturnType<typeof LockedSkill>>;

export const Lockfile = once(() =>
  z.strictObject({
    lockfile_version: z.literal(LOCKFILE_VERSION),
    /** Git sources by source label. */
    sources: namedRecord(LockedSource()),
    /** Served skills by qualified id (`<source>:<name>`). */
    skills: namedRecord(LockedSkill()),
  }),
);
export type Lockfile = z.infer<ReturnType<typeof Lockfile>>;

/**
 * What to do about a lock that cannot be read, as its message ends: `skillhub lock` writes it again from the
 * local copies (lock-advice.ts says otherwise where a repository has none).
 */
export const REWRITE_ADVICE = "restore it from version control or run `skillhub lock` to write it again";

/** LOCK_MISSING, LOCK_INVALID (not JSON, wrong shape, newer version) or LOCK_UNREADABLE, with a sentence that says what to do. */
export class LockError extends SkillHubError {
  declare readonly code: "LOCK_MISSING" | "LOCK_INVALID" | "LOCK_UNREADABLE";

  constructor(code: LockError["code"], message: string, cause?: unknown) {
    super(code, message, { cause });
    this.name = "LockError";
  }
}

/** Parse a lock's text. Throws LockError LOCK_INVALID naming the first bad entry. Pure. */
export function parseLockfile(text: string, file: string): Lockfile {
  // Security: JSON.parse (and repeatedKey) cost memory per open bracket: 60 MB of them took 3.4 GB and 20 s.
  const deep = tooDeep(text);
  if (deep !== undefined)
    throw new LockError(
      "LOCK_INVALID",
      `${file} nests deeper than ${LOCK_MAX_DEPTH} levels at character ${deep + 1} (a lock is 4 deep); ${REWRITE_ADVICE}.`,
    );
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new LockError(
      "LOCK_INVALID",
      `${file} is not valid JSON (${errorMessage(error)}); ${REWRITE_ADVICE}.`,
      error,
    );
  }
  // Security: JSON.parse keeps the last of a repeated key silently, so a pull request could show one digest
  // to its reviewer and have another one read.
  const repeated = repeatedKey(text);
  if (repeated !== undefined) {
    throw new LockError(
      "LOCK_INVALID",
      `${file} gives ${repeated} twice, and only the last would count; ${REWRITE_ADVICE}.`,
    );
  }
  const version = (data as { lockfile_version?: unknown } | null)?.lockfile_version;
  if (typeof version === "number" && version > LOCKFILE_VERSION) {
    throw new LockError(
      "LOCK_INVALID",
      `${file} has lockfile_version ${version}, newer than this SkillHub understands (${LOCKFILE_VERSION}); update SkillHub.`,
    );
  }
  const parsed = Lockfile().safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // The file's keys and values are quoted shortened and on one line: they may be megabytes, with line breaks.
    const where = issue?.path.length ? issue.path.map((p) => shownArg(String(p))).join(".") : "(top level)";
    const said = issue?.message ?? "invalid";
    throw new LockError(
      "LOCK_INVALID",
      `${file} is not a valid SkillHub lock: at ${where}: ${said.length > 300 ? `${shownText(said.slice(0, 300))}…` : shownText(said)}; ${REWRITE_ADVICE}.`,
    );
  }
  return parsed.data;
}

/**
 * The first key an object of `text` (valid JSON) gives twice, with the keys that lead to it
 * (`key "sha256" of skills.project:pdf`), or undefined. Keys are compared as JSON reads them (`"a"` and
 * `"\u0061"` are one key).
 */
export function repeatedKey(text: string): string | undefined {
  // One per open object or array: the keys seen (an array has none) and the key it is the value of.
  const open: { keys?: string[] | Set<string>; under: string }[] = [];
  let lastKey = "";
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at);
    if (char === OPEN_OBJECT || char === OPEN_ARRAY)
      open.push({ keys: char === OPEN_OBJECT ? [] : undefined, under: lastKey });
    else if (char === CLOSE_OBJECT || char === CLOSE_ARRAY) open.pop();
    else if (char === QUOTE) {
      const end = stringEnd(text, at);
      const start = at;
      at = end;
      const container = open[open.length - 1];
      if (!container?.keys) continue;
      // A key is the string a colon follows, after any white space (however much).
      let next = end + 1;
      while (WHITE_SPACE.has(text.charCodeAt(next))) next++;
      if (text.charCodeAt(next) !== COLON) continue;
      const raw = text.slice(start, end + 1);
      const key = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      const keys = container.keys;
      if (Array.isArray(keys) ? keys.includes(key) : keys.has(key)) {
        // Quoted shortened, on one line: the file's keys may be megabytes long and hold line breaks.
        const path = open.slice(1).map((o) => shownArg(o.under));
        return `key ${JSON.stringify(shownArg(key))}${path.length > 0 ? ` of ${path.join(".")}` : ""}`;
      }
      // Most objects of a lock hold a few keys: a list, until one holds many.
      if (Array.isArray(keys) && keys.length >= 16) container.keys = new Set([...keys, key]);
      else if (Array.isArray(keys)) keys.push(key);
      else keys.add(key);
      lastKey = key;
    }
  }
  return undefined;
}

/** Deepest nesting of objects and arrays a lock may have: its own is 4 deep (skills → id → files → path). */
export const LOCK_MAX_DEPTH = 32;

/** Where `text` first opens an object or array deeper than LOCK_MAX_DEPTH (outside strings), or undefined. */
function tooDeep(text: string): number | undefined {
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at);
    if (char === QUOTE) at = stringEnd(text, at);
    else if (char === OPEN_OBJECT || char === OPEN_ARRAY) {
      if (++depth > LOCK_MAX_DEPTH) return at;
    } else if (char === CLOSE_OBJECT || char === CLOSE_ARRAY) depth--;
  }
  return undefined;
}

const [QUOTE, COLON, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY] = [...'":{}[]'].map((c) => c.charCodeAt(0));

/** JSON's white space: space, tab, line feed, carriage return. */
const WHITE_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** Where the JSON string opening at `start` ends (its closing quote): a quote after an odd run of backslashes is escaped. */
function stringEnd(text: string, start: number): number {
  for (let end = text.indexOf('"', start + 1); end !== -1; end = text.indexOf('"', end + 1)) {
    let slashes = 0;
    while (text[end - 1 - slashes] === "\\") slashes++;
    if (slashes % 2 === 0) return end;
  }
  return text.length;
}

/**
 * The value `record` (a lock's skills, sources or files) holds under `key` itself, never one it inherits.
 * Security: a file may be named `constructor` or `__proto__`; looked up plainly, such a name finds
 * Object.prototype's members, which a comparison would take for a recorded digest.
 */
export function entryOf<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * An empty record for a lock's skills, sources or files: without a prototype, so that every name a walker
 * finds (`__proto__` included, which a plain object's setter would swallow) is a key of its own.
 */
export function emptyRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** Largest lock read (bytes): thousands of skills and files fit many times over. */
export const LOCKFILE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Read and parse a lock. Throws LockError (LOCK_MISSING when there is no file).
 *
 * Security: a lock may come from a repository (it is committed), so it is read
 * like any file a repository names: a regular file in its own folder (a link
 * elsewhere is refused), opened without blocking (a FIFO, /dev/zero or
 * /dev/stdin in its place is refused at once), at most LOCKFILE_MAX_BYTES.
 */
export function readLockfile(file: string): Lockfile {
  const read = readConfinedText({
    root: dirname(file),
    file: basename(file),
    maxBytes: LOCKFILE_MAX_BYTES,
    timeBudgetMs: 10_000,
  });
  if (read.ok) return parseLockfile(read.text, file);
  const stat = statOf(file);
  if (stat?.isDirectory()) throw folderInstead(file);
  if (read.code === "FILE_NOT_FOUND" && !stat)
    throw new LockError(
      "LOCK_MISSING",
      `no lock at ${file}; run \`skillhub lock\` to write one (after \`skillhub sync\` if a repository is not fetched yet).`,
    );
  const why = read.code === "PATH_OUTSIDE_SKILL" ? "it links outside its folder" : read.reason.replace(/\.$/, "");
  throw new LockError(
    "LOCK_UNREADABLE",
    `cannot read ${file} (${read.code}: ${why}); a lock must be a regular file of at most ${LOCKFILE_MAX_BYTES} bytes: ${REWRITE_ADVICE}.`,
  );
}

/** readLockfile, or undefined when there is no lock at `file`; a lock that cannot be read still throws. */
export function readLockfileIfPresent(file: string): Lockfile | undefined {
  try {
    return readLockfile(file);
  } catch (error) {
    if (error instanceof LockError && error.code === "LOCK_MISSING") return undefined;
    throw error;
  }
}

/** The lock as text: keys sorted at every level, two-space indentation, final newline. Pure. */
export function formatLockfile(lock: Lockfile): string {
  return `${JSON.stringify(sortKeys(lock), null, 2)}\n`;
}

/** Write the lock atomically (temporary file + rename): a reader never sees half a lock. */
export function writeLockfile(file: string, lock: Lockfile): void {
  if (statOf(file)?.isDirectory()) throw folderInstead(file);
  writeAtomicSync(file, [formatLockfile(lock)]);
}

/** A folder where the lock goes: no lock can be read there, nor written until it is gone. */
function folderInstead(file: string): LockError {
  return new LockError(
    "LOCK_UNREADABLE",
    `${file} is a folder, not a lock: move it away, then run \`skillhub lock\` to write the lock there.`,
  );
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out = emptyRecord<unknown>();
  for (const key of Object.keys(value).sort(compareText)) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}

/** A git source as it is on disk now: its label, URL (no credentials), ref and checked-out commit. */
export interface GitHead {
  label: string;
  url: string;
  ref: string;
  /** null when there is no usable copy yet, or the copy is not served. */
  commit: string | null;
  /** trust.allowed_signers: why the copy on disk is not served (its commit is then null). */
  notServed?: string;
  /** `ref` is a configured tag or commit (SKILLS_REF, `ref:`), which no repository's config.yaml changes. */
  pinned?: true;
  /** The tag, commit or branch the copy was last synced for, when it is not `ref`: its commit is that one's. */
  fetchedFor?: string;
  /** The digest of the copy's `config.yaml` (the repository's settings), when it has one. */
  config?: string;
  /** Files changed in the copy's work tree since its checkout, which the next sync discards. */
  edited?: string[];
  /**
   * Files git ignores in the copy's skills folder, relative to it ("/" separators): no commit holds them,
   * so no lock records them (build.ts).
   */
  ignored?: string[];
  /** Why git could not list the copy's local changes (its message, naming the copy): `edited` is then unknown. */
  unchecked?: string;
}
