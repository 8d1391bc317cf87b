import { readdirSync } from "node:fs";
import { join, sep } from "node:path";
import { localFile } from "../analytics/setup.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { runnerPrograms } from "../exec/runners.ts";
import { skillUris } from "../skills/skill-uri.ts";
import { realOr } from "../util/safe-path.ts";
import { SERVER_PATH, shownArg } from "../util/shown-arg.ts";
import type { Hub } from "./hub.ts";
import { claimedFolders } from "./skills-extension/publication.ts";
import { nodeFileOwner, nodeFileUri } from "./skills-extension/uri-conflicts.ts";

/** How a remote client is told about a path of this server: a skill's folder by its URI, any other folder by a name. */
export interface ServerPaths {
  /** Agent Skill folders and tree nodes' resource folders (real paths too) → `skill://…`; a node's .md → `skill://<path>.md`. */
  skills: Map<string, string>;
  /** The longest key of `skills`: how far past a folder a skill's folder can reach. */
  longest: number;
  /** Other folders of this server, longest first → a name in angle brackets. */
  folders: Array<[path: string, name: string]>;
  /**
   * Folders of `folders` hidden also where they end a longer path (`/backup/home/ana`): the user's home,
   * whose path holds the user's name. Others are a path's only where they start it.
   */
  anywhere?: ReadonlySet<string>;
  /**
   * Folders of `folders` written without their leading `/` (`home/ana`, as tar and zip list what they
   * archive), found only as a word's start: the home's, by the same right as `anywhere`.
   */
  relative?: ReadonlySet<string>;
  /** What separates a path's folders here: `\\` on Windows, else `/`. */
  separator: "/" | "\\";
  /**
   * Any other path of this server, which no folder above names, is `<server path>` where the server or a
   * program speaks (hideOtherPaths); `roots`, the names in its root folder, one of which starts each of its
   * POSIX paths (`/api/v1` is none of them). Absent: only the folders above are hidden.
   */
  others?: { roots?: ReadonlySet<string> };
}

const perCatalog = new WeakMap<
  Catalog,
  { skills: Map<string, string>; longest: number; reals: Array<[string, string]> }
>();

/**
 * The paths of this server a remote client must never be told, and what it is
 * told instead: each Agent Skill's folder and each tree node's resource folder
 * becomes its skill:// URI (so a path under it becomes the file's URI, the one
 * resources/read and read_skill_file serve); the
 * skills folders (by source label), the project root, SkillHub's home, the
 * user's home, the working folder, the analytics file and the programs scripts and commands start become
 * names.
 */
export function serverPaths(hub: Hub, homeDir = userHome()): ServerPaths {
  const catalog = hub.catalog;
  let known = perCatalog.get(catalog);
  if (!known) {
    const skills = new Map<string, string>();
    // A skill folder reached through a link: its real path shows in what programs print (stack traces).
    const reals: Array<[string, string]> = [];
    const add = (dir: string, uri: string) => {
      // An Agent Skill's folder is its own, even where a tree node's resource folder would be.
      if (skills.has(dir)) return;
      skills.set(dir, uri);
      const real = realOr(dir);
      if (real === dir) return;
      skills.set(real, uri);
      if (uri !== NO_URI) reals.push([real, uri]);
    };
    const served = catalog.skills.map((skill) => ({ skill, shadowed: false }));
    const others = catalog.reachableShadowed().map(({ skill }) => ({ skill, shadowed: true }));
    const ordered = [...served, ...others].sort((a, b) => rank(a.skill) - rank(b.skill));
    for (const { skill, shadowed } of ordered) {
      const uri = skillUris(skill, shadowed).dir("");
      add(skill.dir, uri);
      // A node's own file, as resources/read serves it (readNodeFile), unless a skill's file has its URI.
      if (skill.kind === "tree-node")
        add(skill.file, nodeFileOwner(catalog, skill, shadowed) ? NO_URI : nodeFileUri(skill, shadowed));
      // A folder of the skill whose URIs a tree node or a shadowed skill holds is named, not given theirs.
      else for (const folder of claimedFolders(catalog, skill, shadowed) ?? []) add(join(skill.dir, folder), NO_URI);
    }
    known = { skills, longest: Math.max(0, ...[...skills.keys()].map((dir) => dir.length)), reals };
    perCatalog.set(catalog, known);
  }
  const named: Array<[string, string]> = catalog.sources.map((s) => [s.dir, `<skills folder '${s.label}'>`]);
  if (hub.projectRoot.dir) named.push([hub.projectRoot.dir, "<project>"]);
  named.push([hub.config.home, "<skillhub home>"], [hub.exec.cwd, "<server folder>"]);
  // Wherever the operator keeps it: the page's usage and status views name it.
  const analytics = localFile(hub.config);
  if (analytics) named.push([analytics, "<analytics file>"]);
  if (homeDir !== "") named.push([homeDir, "<home>"]);
  named.push(...startedPrograms(hub));
  const folders = [...named, ...known.reals]
    .flatMap(([path, name]): Array<[string, string]> => {
      const real = realOr(path);
      return real === path
        ? [[path, name]]
        : [
            [path, name],
            [real, name],
          ];
    })
    // A root folder ("/", "C:\\") would rename every path: such a setting names nothing worth hiding; nor does "".
    .filter(([path]) => !ROOT.test(path))
    .sort((a, b) => b[0].length - a[0].length);
  // No home (HOME unset) is no folder: realOr("") would be the working folder.
  const anywhere = new Set(homeDir === "" ? [] : [homeDir, realOr(homeDir)].filter((path) => !ROOT.test(path)));
  // `home/ana`, not `ana` alone: a folder of one name, written relatively, is too likely a word.
  const relative = new Set(
    sep === "/" ? [...anywhere].filter((path) => /^\/[^/]+\/./.test(path)).map((path) => path.slice(1)) : [],
  );
  const all = [...folders, ...[...relative].map((path): [string, string] => [path, "<home>"])].sort(
    (a, b) => b[0].length - a[0].length,
  );
  return {
    skills: known.skills,
    longest: known.longest,
    folders: all,
    anywhere,
    relative,
    separator: sep === "\\" ? "\\" : "/",
    others: { roots: rootNames() },
  };
}

/** The names in the root folder; undefined on Windows or where it cannot be read (any name may start a path). */
function rootNames(): ReadonlySet<string> | undefined {
  if (sep !== "/") return undefined;
  try {
    return new Set(readdirSync("/"));
  } catch {
    return undefined;
  }
}

/** The programs this server's scripts and commands may start, as `<program '…'>` (a failure to start one names it). */
function startedPrograms(hub: Hub): Array<[string, string]> {
  const { scripts, commands } = hub.config;
  if (!scripts.enabled && !commands.enabled) return [];
  return runnerPrograms(
    scripts.enabled ? scripts.runners : {},
    commands.enabled ? commands.allowed : [],
    hub.exec,
    hub.exec.env.PATH,
  );
}

/** In `ServerPaths.skills`: a path in a skill's folder that has no URI of its own (uri-conflicts.ts); it is named as any other. */
const NO_URI = "";

/** Agent Skills first: a folder that is both a skill's and a tree node's resource folder is the skill's. */
function rank(skill: { kind: string }): number {
  return skill.kind === "agent-skill" ? 0 : 1;
}

/** A root folder: "", "/", "\\", "C:", "C:\\". */
const ROOT = /^(?:[/\\]?|[A-Za-z]:[/\\]?)$/;

/** The user's home from the environment (node:os stays out of the stdio server's start-up imports). */
function userHome(): string {
  return process.env.HOME ?? process.env.USERPROFILE ?? "";
}

/**
 * What an answer holds, and so what of it is swept: "answer", anything SkillHub or a program says (every
 * path of the server: its folders named, any other path `<server path>`), but for the skill's own words it
 * carries (SKILL_WORDS: a description, an excerpt), where only the folders are named; "page", the web
 * page's answers for a client, swept as an "answer", a file's text (`text`) among a skill's words; "file",
 * a file's own bytes in its `content` field (read_skill_file, get_asset), served as they are, as
 * resources/read serves them: their size and digest must stay the file's; "skill", a skill's own text
 * (skill, load_skill, get_skill, prompts): a path into a skill becomes its URI, and any other path is the
 * author's, written for the agent's machine (`/tmp/shot.png`), and is kept as the skill's files have it
 * (read_skill_file serves the same words).
 */
export type SweepKind = "answer" | "page" | "file" | "skill";

/**
 * Security: a tool or prompt result for a client on another machine, with every
 * path of this server replaced. The core tools name a skill's files by skill://
 * URI themselves; this is the one place that makes it true of every answer (a
 * listing's file field, a script's output, a message from a lower layer).
 * Text and structured content alike; the result's shape is kept: a text that is
 * the JSON of the structured content is written again from the swept content,
 * so its escapes stay whole. An error result is an "answer", whatever `kind` says.
 */
export function hideServerPaths<T>(result: T, paths: ServerPaths, kind: SweepKind = "answer"): T {
  const json = JSON.stringify(result);
  // As the JSON writes them: a path holding a backslash or a quote is escaped there. On Windows, the
  // sweep's own patterns, which take any run of slashes (an escaped one too) for a separator.
  const m = matcher(paths);
  const written = (path: string, index: number) =>
    paths.separator === "/" ? json.includes(JSON.stringify(path).slice(1, -1)) : m.find(index, json, 0) !== undefined;
  const sweptKind = (result as { isError?: unknown }).isError === true ? "answer" : kind;
  // A text cut short may end inside a folder's name, which is then nowhere written whole (nextCut).
  if (
    !paths.folders.some(([path], index) => written(path, index)) &&
    !hasEscapes(json) &&
    !(paths.separator === "/" && json.includes(JSON.stringify(ESCAPED_SLASH).slice(1, -1))) &&
    !json.includes(CUT) &&
    !(paths.others && sweptKind !== "skill" && OTHER_HINT[paths.separator].test(json))
  )
    return result;
  const swept = sweep(result, paths, sweptKind) as T;
  const before = result as { content?: unknown; structuredContent?: unknown };
  const after = swept as { content?: unknown; structuredContent?: unknown };
  if (before.structuredContent === undefined || !Array.isArray(before.content) || !Array.isArray(after.content))
    return swept;
  const pretty = JSON.stringify(before.structuredContent, null, 2);
  const compact = JSON.stringify(before.structuredContent);
  before.content.forEach((item: { text?: unknown }, i) => {
    const text = item?.text;
    if (text !== pretty && text !== compact) return;
    (after.content as { text?: string }[])[i] = {
      ...(after.content as object[])[i],
      text: JSON.stringify(after.structuredContent, null, text === pretty ? 2 : undefined),
    };
  });
  return swept;
}

/**
 * Security: a caller's string as an error sent to a client on another machine quotes it, where no answer's
 * sweep follows (a protocol error): its paths of this server hidden while whole (each becomes its file's URI
 * or its folder's name), then cut short as shownArg cuts it (a cut leaves no path, whole or not).
 */
export function shownHidden(text: string, paths: ServerPaths): string {
  return shownArg(hideServerPaths(text, paths));
}

/**
 * Where a file's answer holds the file's own bytes: its text (`content`), or its base64 (`content_base64`,
 * and an image block's `data`), whose letters and slashes can spell a folder's path by chance.
 */
const FILE_BYTES = new Set(["content", "content_base64", "data"]);

/**
 * Where an answer carries a skill's own words (its description, tags, frontmatter, body, an excerpt of it):
 * their keys, the values under them however nested. The author's paths there are kept (as SweepKind "skill"
 * keeps them), the server's folders named. The page's file view carries a file's text as `text` too.
 */
const SKILL_WORDS = new Set([
  "description",
  "tags",
  "keywords",
  "category",
  "frontmatter",
  "body",
  "excerpt",
  "markdown",
]);
const PAGE_SKILL_WORDS = new Set([...SKILL_WORDS, "text"]);

/** `own`: `value` is (in) a skill's own words. */
function sweep(value: unknown, paths: ServerPaths, kind: SweepKind, key?: string, own = false): unknown {
  const words =
    own || kind === "skill" || (key !== undefined && (kind === "page" ? PAGE_SKILL_WORDS : SKILL_WORDS).has(key));
  if (typeof value === "string")
    return kind === "file" && key !== undefined && FILE_BYTES.has(key) ? value : hide(value, paths, kind, words);
  if (Array.isArray(value)) return value.map((item) => sweep(item, paths, kind, undefined, words));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sweep(v, paths, kind, k, words)]));
}

/**
 * How paths are found and compared here. POSIX: as they are. Windows: without regard to case, with `/`
 * taken for `\\` and any run of them for one (`c:/hub//skills`, `C:\\\\hub\\\\skills` escaped by a
 * program, are `C:\\hub\\skills`): each folder is looked for by a pattern, and skill folders by a key.
 */
interface Matcher {
  /** The next place `folder` (its index in `paths.folders`) is written in `text`, from `from` on. */
  find(index: number, text: string, from: number): { at: number; end: number } | undefined;
  /** A path as the skill folders are keyed. */
  key(path: string): string;
  skills: ReadonlyMap<string, string>;
  /** Whether a character separates folders. */
  isSeparator(char: string | undefined): boolean;
  /** Where a character ends a path past its skill folder (see `endsPath`). */
  end: RegExp;
}

/** Lower case, one `\\` for any run of slashes, and one sigma: the same Windows path, however written. */
function windowsKey(path: string): string {
  return path
    .toLowerCase()
    .replace(/[\\/]+/g, "\\")
    .replaceAll("ς", "σ");
}

const windowsMatchers = new WeakMap<ServerPaths, Matcher>();
const windowsSkills = new WeakMap<ReadonlyMap<string, string>, Map<string, string>>();

function matcher(paths: ServerPaths): Matcher {
  if (paths.separator === "/")
    return {
      find: (index, text, from) => {
        const folder = paths.folders[index]?.[0] ?? "";
        const at = text.indexOf(folder, from);
        return at < 0 ? undefined : { at, end: at + folder.length };
      },
      key: (path) => path,
      skills: paths.skills,
      isSeparator: (char) => char === "/",
      end: /[\s"'`‘’“”«»<>()[\]{},;|\\…]/,
    };
  let known = windowsMatchers.get(paths);
  if (!known) {
    // A pattern that begins with a run of slashes (a UNC folder) never starts inside one: it would
    // otherwise try again from each slash of a long run.
    const patterns = paths.folders.map(([folder]) => {
      const body = folder
        .split(/[\\/]+/)
        .map((segment) => segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join("[\\\\/]+");
      return new RegExp(/^[\\/]/.test(folder) ? `(?<![\\\\/])${body}` : body, "giu");
    });
    let skills = windowsSkills.get(paths.skills);
    if (!skills) {
      skills = new Map([...paths.skills].map(([dir, uri]) => [windowsKey(dir), uri]));
      windowsSkills.set(paths.skills, skills);
    }
    known = {
      find: (index, text, from) => {
        const pattern = patterns[index];
        if (!pattern) return undefined;
        pattern.lastIndex = from;
        const found = pattern.exec(text);
        return found ? { at: found.index, end: found.index + found[0].length } : undefined;
      },
      key: windowsKey,
      skills,
      isSeparator: (char) => char === "\\" || char === "/",
      end: /[\s"'`‘’“”«»<>()[\]{},;|…]/,
    };
    windowsMatchers.set(paths, known);
  }
  return known;
}

/**
 * Whether the character at `i` ends a path in running text, past the skill folder it is in (a space may
 * be in a folder's name): a quote, a bracket, a space…; and `:` or `=` when the next path starts there
 * (`PATH=/a:/b`, `--out=/x`), not inside a name (`a=b.txt`, `pdf:extra`).
 */
function endsPath(text: string, i: number, m: Matcher, query = false): boolean {
  const char = text[i];
  if (char === undefined || m.end.test(char)) return true;
  if (query && (char === "&" || char === "#")) return queryGoesOn(text, i, m);
  if (char !== ":" && char !== "=") return false;
  const rest = text.slice(i + 1, i + 4);
  // A line number (`x.py:10:`) ends it too.
  return m.isSeparator(rest[0]) || (char === ":" && /^\d/.test(rest)) || (char === "=" && /^[A-Za-z]:[\\/]/.test(rest));
}

/** A URL query's parameter name and `=` (`?dir=`, `&out=`), as it ends the text before a path, and its longest. */
const QUERY_KEY = /[?&][\w.~+%[\]-]+=$/;
const QUERY_KEY_CHARS = 64;

/** Whether the path written from `lead` is a URL query's value: a parameter name and `=` before it. */
function queryValue(text: string, lead: number): boolean {
  return QUERY_KEY.test(text.slice(Math.max(0, lead - QUERY_KEY_CHARS), lead));
}

/**
 * Security: whether the `&` or `#` at `i`, in a path that is a URL query's value, is the query's own: the
 * next parameter (`?dir=/srv/x&y=1`) or the fragment (`#top`). In a URL a name's `&` or `#` is written
 * `%26`, `%23`; a file's name may hold them as written too (`/srv/a&b=c/d`), so only where what follows, up
 * to the next `&` or `#` or the end of running text, holds no separator (the next value may be a path of
 * its own: `&out=/srv/y`): a name holding them with folders after it is hidden whole.
 */
function queryGoesOn(text: string, i: number, m: Matcher): boolean {
  let at = i + 1;
  if (text[i] === "&") {
    const key = /^[\w.~+%[\]-]+=/.exec(text.slice(at, at + QUERY_KEY_CHARS));
    if (!key) return false;
    at += key[0].length;
    if (m.isSeparator(text[at])) return true;
  }
  for (; at < text.length; at++) {
    const char = text[at] as string;
    if (m.isSeparator(char)) return false;
    if (char === "&" || char === "#" || m.end.test(char)) return true;
  }
  return true;
}

/**
 * A string of an answer as it leaves: its percent-encoded paths decoded and swept, then every other folder;
 * then, but in a skill's own words (`own`), any path of the server left (hideOtherPaths). On POSIX, a text
 * holding slashes escaped as some JSON writers escape them (`\/home\/ana\/x`, PHP's json_encode) is swept
 * once more for those: its own slashes held aside (a regular expression, a sed command keep theirs) and the
 * escaped ones given back escaped. Security: what that leaves is read once more with every slash
 * unescaped; where that still finds a path (one half escaped: `\/tmp/x`), the text is swept that way.
 */
function hide(value: string, paths: ServerPaths, kind: SweepKind, own: boolean): string {
  const others = own ? undefined : paths.others;
  const swept = (text: string) => {
    const named = hidePaths(decodedEscapes(text, paths, kind, others), paths, kind, true);
    return others ? hideOtherPaths(named, paths, others, true) : named;
  };
  const once = swept(value);
  if (paths.separator !== "/" || !once.includes(ESCAPED_SLASH)) return once;
  const unescaped = (text: string) => text.replaceAll(ESCAPED_SLASH, "/");
  if (!once.includes(OWN_SLASH)) {
    const marked = once.replaceAll("/", OWN_SLASH).replaceAll(`\\${OWN_SLASH}`, "/");
    const again = swept(marked);
    const kept = again === marked ? once : again.replaceAll("/", ESCAPED_SLASH).replaceAll(OWN_SLASH, "/");
    const plain = unescaped(kept);
    if (swept(plain) === plain) return kept;
  }
  const plain = unescaped(once);
  const whole = swept(plain);
  return whole === plain ? once : whole;
}

/** Stands for a text's own (unescaped) slash while its escaped ones are swept: a private-use character. */
const OWN_SLASH = "\uE000";

/** A slash as JSON may escape it. */
const ESCAPED_SLASH = "\\/";

/** A percent escape (`%C3`, `%2f`). */
const ESCAPE = /%[0-9A-Fa-f]{2}/;

/** Whether a text may hold a percent-encoded path (decodedEscapes has work to do). */
function hasEscapes(text: string): boolean {
  return text.includes("%") && ESCAPE.test(text);
}

/** Where a word of running text (a URL, a path) ends. */
const WORD_END = /[\s"'`<>]/;

/**
 * `value` with each word holding percent escapes that names a path of this server once decoded
 * (`file:///home/zo%C3%AB/My%20Skills/x`, `?path=%2Fhome%2Fzo%C3%AB%2Fx`, Python's `quote(os.getcwd())`)
 * replaced by that path swept (with `others`, any other path of the server in it too); a word naming none is
 * kept as written. A path written this way holds no folder's name as the server has it.
 */
function decodedEscapes(value: string, paths: ServerPaths, kind: SweepKind, others: ServerPaths["others"]): string {
  if (!hasEscapes(value)) return value;
  const escapes = new RegExp(ESCAPE.source, "g");
  let out = "";
  let pos = 0;
  for (let hit = escapes.exec(value); hit; hit = escapes.exec(value)) {
    let start = hit.index;
    while (start > pos && !WORD_END.test(value[start - 1] as string)) start--;
    let end = hit.index;
    while (end < value.length && !WORD_END.test(value[end] as string)) end++;
    // A sentence's or a Markdown link's end is not the word's, nor a line number (`x.py:3:`).
    while (end > hit.index + 3 && /[.,;:!?)\]}]/.test(value[end - 1] as string)) end--;
    end -= /(?::\d+)+$/.exec(value.slice(Math.max(hit.index + 3, end - 24), end))?.[0].length ?? 0;
    const word = value.slice(start, end);
    // A file URL starts a path (`[log](file:///…)`); any other word may be one.
    const from = Math.max(0, word.search(/file:/i));
    out += value.slice(pos, start) + word.slice(0, from) + decodedWord(word.slice(from), paths, kind, others);
    pos = end;
    escapes.lastIndex = end;
  }
  return out + value.slice(pos);
}

/**
 * A word with percent escapes (a file URL, a path, a query) as the sweep leaves it, each of its query's
 * parts on its own (decodedPart): in a URL that escapes, a raw `&` or `#` is the query's, and an escaped
 * one (`%26`) is a name's, which decoded goes on in its path.
 */
function decodedWord(url: string, paths: ServerPaths, kind: SweepKind, others: ServerPaths["others"]): string {
  const query = url.indexOf("?");
  if (query < 0) return decodedPart(url, paths, kind, others);
  const [first = "", ...rest] = url.slice(query).split(/(?=[&#])/);
  return [url.slice(0, query) + first, ...rest].map((part) => decodedPart(part, paths, kind, others)).join("");
}

/**
 * A word's part with percent escapes as the sweep leaves it: the URI of the skill file its decoded path
 * names (the whole part is that path, spaces and all), else its decoded form swept (with `others`, any
 * other path of the server in it too: `?path=%2Fsrv%2Fdata%2Fx`), else (naming nothing of this server) as
 * written.
 */
function decodedPart(url: string, paths: ServerPaths, kind: SweepKind, others: ServerPaths["others"]): string {
  const decoded = percentDecoded(url);
  if (decoded === url) return url;
  const path = decoded.replace(URL_LEAD[paths.separator], "");
  const uri = inSkill(path, 1, paths, matcher(paths));
  if (uri !== undefined) return uri;
  const named = hidePaths(decoded, paths, kind, false);
  const swept = others ? hideOtherPaths(named, paths, others, false) : named;
  return swept === decoded ? url : swept;
}

/** A file URL's start before its path (LEAD, anchored at the start); nothing in a word that is no file URL. */
const URL_LEAD = {
  "/": /^file:(?:\/\/(?:localhost)?)?/i,
  "\\": /^file:(?:[\\/]{2,}(?:localhost)?[\\/]?)?/i,
};

/** Each run of percent escapes decoded as UTF-8; a run that is not UTF-8 is kept as written. */
function percentDecoded(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/**
 * `value` with every path of `paths.folders` in it replaced, in one pass from left to right: at each step
 * the earliest place a folder is written (the longest folder there), and the path it starts, which ends
 * where running text would end it or where the next folder is written (a second path glued on:
 * `out.txt#/home/…`). Each folder's next place is looked for again only once passed: the pass costs the
 * text's length times the number of folders.
 */
function hidePaths(value: string, paths: ServerPaths, kind: SweepKind, queries: boolean): string {
  const m = matcher(paths);
  const count = paths.folders.length;
  const cached: Array<Hit | undefined | null> = new Array(count).fill(null);
  const nextFrom = (index: number, from: number) => {
    let hit = cached[index];
    if (hit === null || (hit !== undefined && hit.at < from)) {
      hit = nextHit(value, index, from, paths, m);
      cached[index] = hit;
    }
    return hit;
  };
  // The same for a path cut short inside a folder's name; none looked for where nothing was cut.
  let cut: Hit | undefined | null = value.includes(CUT) ? null : undefined;
  // The first cut at or after a place, found again only once passed: a text of many paths and one cut at its
  // end is read once, not once a path.
  let cutAt = value.indexOf(CUT);
  const cutAfter = (from: number) => {
    if (cutAt >= 0 && cutAt < from) cutAt = value.indexOf(CUT, from);
    return cutAt;
  };
  const cutFrom = (from: number) => {
    if (cut === null || (cut !== undefined && cut.at < from)) cut = nextCut(value, from, paths, m, kind);
    return cut;
  };
  let out = "";
  let pos = 0;
  for (;;) {
    let best: (Hit & { index: number }) | undefined;
    for (let index = 0; index < count; index++) {
      const hit = nextFrom(index, pos);
      if (hit && (!best || hit.at < best.at || (hit.at === best.at && hit.end > best.end))) best = { ...hit, index };
    }
    const shortened = cutFrom(pos);
    if (shortened && (!best || shortened.at < best.at)) {
      // Security: what is left of a folder's path cut short is hidden as the whole path would be.
      const kept = shortened.inner ? shortened.at + 1 : Math.max(pos, shortened.lead);
      out += value.slice(pos, kept) + SERVER_PATH;
      pos = shortened.end;
      continue;
    }
    if (!best) break;
    const skillEnd = skillFolderEnd(value, best.at, best.end, paths, m);
    let bound = value.length;
    for (let index = 0; index < count; index++) {
      const hit = nextFrom(index, best.end);
      if (hit && hit.lead < bound) bound = Math.max(hit.lead, best.end);
    }
    const glued = cutFrom(best.end);
    if (glued && glued.lead < bound) bound = Math.max(glued.lead, best.end);
    // The URL or long-path prefix before the folder goes with it: `file:///srv/x` is the path /srv/x.
    const lead = Math.max(pos, best.lead);
    const query = queries && queryValue(value, lead);
    let stop = skillEnd;
    while (stop < bound && !endsPath(value, stop, m, query)) stop++;
    const name = paths.folders[best.index]?.[1] ?? "";
    // A folder that ends a longer path (`/backup/home/ana/x`) is no skill's: only its names are hidden.
    const uri = best.inner ? undefined : inSkill(value.slice(best.at, stop), best.end - best.at, paths, m);
    // A skill's text keeps its author's paths, but not one cut short where it may go on into a skill's folder.
    const cutInto =
      kind === "skill" && uri === undefined && !best.inner
        ? cutInSkill(value, best.at, cutAfter(best.at), bound, paths, m)
        : undefined;
    if (cutInto !== undefined) stop = cutInto;
    if (uri !== undefined) out += value.slice(pos, lead) + uri;
    else if (kind === "skill" && cutInto === undefined) out += value.slice(pos, stop);
    else if (best.inner) out += value.slice(pos, best.at + 1) + name + value.slice(best.end, stop);
    else out += value.slice(pos, lead) + name + value.slice(best.end, stop);
    pos = stop;
  }
  return out + value.slice(pos);
}

/**
 * Where a folder is written: `at` to `end`, and `lead`, where a prefix that makes it a URL or a long path
 * starts; `inner` when it ends a longer path (a folder of `paths.anywhere`).
 */
interface Hit {
  lead: number;
  at: number;
  end: number;
  inner?: boolean;
}

/** A character of a folder's name: the name goes on past a folder written before it (`/home/ana` in `/home/anabel`). */
const NAME_CHAR = /[\p{L}\p{N}_~+-]/u;

/** Longest name walked back over before a folder (NAME_MAX): a longer run of name characters is no folder's name. */
const NAME_MAX = 255;

/**
 * Whether the folder written at `at` is the end of a longer path, not a path of its own: the name right
 * before it follows a separator (`/backup` in `/backup/home/ana`), or is only dots (`./home/ana`). A name
 * glued on with no separator before it is an option's or a word's (`-I/home/ana/include`), and the folder
 * is the server's.
 */
function continuesPath(text: string, at: number, m: Matcher): boolean {
  let start = at;
  while (start > 0 && at - start < NAME_MAX) {
    const char = text[start - 1] as string;
    if (!NAME_CHAR.test(char) && char !== ".") break;
    start--;
  }
  if (start === at) return false;
  return m.isSeparator(text[start - 1]) || /^\.+$/.test(text.slice(start, at));
}

/**
 * What may stand right before a path and belongs with it: a file URL's `file://` (`file:///srv/x`,
 * `file://localhost/srv/x`, `file:` before a UNC path's own slashes), and on Windows the long-path and
 * device prefixes (`\\?\C:\x`, `\\.\C:\x`, `\\?\UNC` before a UNC path's `\server\share`).
 */
const LEAD = {
  "/": /file:(?:\/\/(?:localhost)?)?$/i,
  "\\": /(?:file:(?:[\\/]{2,}(?:localhost)?[\\/]?)?|[\\/]{2,}[?.][\\/]+(?:UNC)?)$/i,
};

/** Most characters a LEAD prefix has (`file://localhost/`, an escaped `\\?\UNC`). */
const LEAD_CHARS = 24;

/**
 * Where folder `index` is next written in `text` from `from` on, as a whole path: it starts a path (a LEAD
 * prefix before it, or no longer path it ends: continuesPath; a folder of `paths.anywhere` may end one)
 * and ends one of its folders (no name goes on past
 * it: `/home/ana` is not in `/home/anabel/x`, nor `/home/anabel` in `/backup/home/anabel`), a `.` going
 * on only into a name (`…/pdf.bak`, while `…/pdf.` ends a sentence).
 */
function nextHit(text: string, index: number, from: number, paths: ServerPaths, m: Matcher): Hit | undefined {
  const folder = paths.folders[index]?.[0] ?? "";
  const closed = m.isSeparator(folder[folder.length - 1]);
  for (let at = from; ; ) {
    const hit = m.find(index, text, at);
    if (!hit) return undefined;
    at = hit.at + 1;
    const next = text[hit.end];
    const goesOn =
      next !== undefined && (NAME_CHAR.test(next) || (next === "." && NAME_CHAR.test(text[hit.end + 1] ?? "")));
    if (goesOn && !closed) continue;
    const start = pathStart(text, hit.at, folder, paths, m);
    if (start) return { ...start, ...hit };
  }
}

/**
 * Where the path that `folder` (of `paths.folders`), written at `at`, starts, if it starts one there: `lead`
 * before a LEAD prefix, `inner` where a folder of `paths.anywhere` ends a longer path; undefined where it
 * is only part of a longer path or a word (see nextHit).
 */
function pathStart(
  text: string,
  at: number,
  folder: string,
  paths: ServerPaths,
  m: Matcher,
): { lead: number; inner?: true } | undefined {
  if (paths.relative?.has(folder)) {
    // Only where a word starts: `myhome/ana` or `x/home/ana` is another path (the latter the home's, found whole).
    const prior = text[at - 1];
    return prior === undefined || !(NAME_CHAR.test(prior) || prior === "." || m.isSeparator(prior))
      ? { lead: at }
      : undefined;
  }
  const before = text.slice(Math.max(0, at - LEAD_CHARS), at);
  const lead = LEAD[paths.separator].exec(before);
  if (lead) return { lead: at - lead[0].length };
  if (!continuesPath(text, at, m)) return { lead: at };
  // Security: the user's home ending a longer path (`/backup/home/ana`) still names the user.
  if (paths.anywhere?.has(folder) && m.isSeparator(folder[0])) return { lead: at, inner: true };
  return undefined;
}

/**
 * What ends a text cut short (util/shown-arg.ts, excerpts, a description shortened to fit): a path there may
 * stop inside a folder's name, and then names no folder whole.
 */
const CUT = "…";

/** A path's root, as a key writes it (`/`, `c:\\`, `\\` before a UNC server): no folder's first name. */
const ROOT_START = /^(?:[a-z]:)?[\\/]*/;

/** Where a path no folder names may be in an answer, as its JSON writes it (any slash, on Windows a drive's too). */
const OTHER_HINT = { "/": /\//, "\\": /[A-Za-z]:[\\/]|[\\/]{2}/ };

/**
 * A path's root, a name after it: POSIX `/`; Windows a drive's (`C:\\`, `c:/`, its long form's `\\\\?\\`
 * a LEAD before it) or a UNC path's `\\\\` (`\\\\?\\UNC\\` in long form), the server's name after it.
 */
const OTHER_ROOT = {
  "/": /\/(?=[^\s/])/g,
  "\\": /(?:[A-Za-z]:[\\/]+|[\\/]{2,}[?.][\\/]+UNC[\\/]+|[\\/]{2,}(?![?.][\\/]))(?=[^\s\\/])/gi,
};

/**
 * What may stand before a path of its own (before its LEAD prefix, if any): a space, a quote, a bracket, a
 * list's or a setting's separator (`PATH=/a:/b`), a tag's or a redirection's `>` (`<dir>/srv/x</dir>`,
 * `2>/tmp/err.log`) but the one ending a name the sweep gave (givenName); nothing, at a text's start. Not a
 * name's character (a path in a word or a URL: `and/or`, `https://host/a/b`), nor a slash (`skill://pdf/a`).
 * Each ends a path too (Matcher.end, endsPath): no path starts inside another, so each is read once.
 */
const OTHER_BEFORE = /[\s"'`‘“«([{<>=:,;|]/;

/** Most letters of an option's name a path is glued to (`-I/usr/include`, `-isystem/usr/x`). */
const OPTION_MAX = 16;

/**
 * Whether a program's option ends right before `at`, the path glued to it (`cc -I/usr/x -L/opt/y`): a dash
 * and letters, where a word starts (after a space, a quote, a bracket or a comma: `-Wl,-rpath,-L/x`), each
 * of which ends a path too (as OTHER_BEFORE's do).
 */
function afterOption(text: string, at: number): boolean {
  let start = at;
  while (start > 0 && at - start < OPTION_MAX && /[A-Za-z]/.test(text[start - 1] as string)) start--;
  if (start === at || text[start - 1] !== "-") return false;
  const before = text[start - 2];
  return before === undefined || /[\s"'`(,]/.test(before);
}

/** After its root, a path of at least two names (`srv/x`): a root folder's name alone (`/proc`) says little. */
const TWO_NAMES = { "/": /^[^/]+\/+[^/]/, "\\": /^[^\\/]+[\\/]+[^\\/]/ };

/**
 * Security: `value`, its folders already named (hidePaths), with every other path of this server as
 * `<server path>`, a file URL's `file://` with it: a link's target outside every folder the sweep knows, a
 * repository in a local folder, a file a program names. A path from a root (not one in a word or a URL:
 * OTHER_BEFORE, or an option glued to it: afterOption) with at least two names, which on POSIX starts with a
 * name in the root folder (`/api/v1/x` is
 * no path here). Nothing else on the disk decides it: what an answer makes of a caller's text it quotes tells
 * no more than a listing of the root folder. Where it ends (otherEnd), a name may hold spaces
 * (`/Users/Jane Doe/…`, `C:\\Program Files (x86)\\…`).
 */
function hideOtherPaths(
  value: string,
  paths: ServerPaths,
  others: NonNullable<ServerPaths["others"]>,
  queries: boolean,
): string {
  const m = matcher(paths);
  const roots = OTHER_ROOT[paths.separator];
  const next = nextIndex(value);
  roots.lastIndex = 0;
  let out = "";
  let pos = 0;
  for (let hit = roots.exec(value); hit; hit = roots.exec(value)) {
    const at = hit.index;
    const lead = at - (LEAD[paths.separator].exec(value.slice(Math.max(pos, at - LEAD_CHARS), at))?.[0].length ?? 0);
    const prior = value[lead - 1];
    if (prior !== undefined && !OTHER_BEFORE.test(prior) && !afterOption(value, lead)) continue;
    if (prior === ">" && givenName(value, lead - 1, paths)) continue;
    // A URL's `//host` (`https://host/x`): a UNC path's slashes, but after a scheme.
    if (prior === ":" && lead === at && m.isSeparator(value[at + 1])) continue;
    const from = at + hit[0].length;
    const query = queries && queryValue(value, lead);
    const stop = otherEnd(value, lead, pathEnd(value, from, m, query), m, next, query);
    // Its names as far as it goes: `C:\\Program Files\\x` has two, `/Volumes/My Drive` starts with `Volumes`.
    const names = value.slice(from, stop);
    if (!TWO_NAMES[paths.separator].test(names)) continue;
    if (paths.separator === "/" && others.roots && !others.roots.has(names.slice(0, names.indexOf("/")))) continue;
    out += value.slice(pos, lead) + SERVER_PATH;
    pos = stop;
    roots.lastIndex = stop;
  }
  return out + value.slice(pos);
}

/** Where the path going on at `from` ends in running text (endsPath), without a sentence's dots or colons after it. */
function pathEnd(text: string, from: number, m: Matcher, query: boolean): number {
  let end = from;
  while (!endsPath(text, end, m, query)) end++;
  while (end > from && (text[end - 1] === "." || text[end - 1] === ":")) end--;
  return end;
}

/** The quotes a path may be written in, each with the mark that closes it. */
const CLOSING: Readonly<Record<string, string>> = { "'": "'", '"': '"', "`": "`", "‘": "’", "“": "”", "«": "»" };

/** Most characters a quoted path holds (PATH_MAX): a closing mark further on closes something else. */
const QUOTED_MAX = 4096;

/**
 * Where a path of the server that no folder names, written from `lead` and in running text ending at `end`
 * (pathEnd), ends, a name holding a space included. Quoted (`'/tmp/my skills/x'`, as most programs quote a
 * path), at the closing mark on the same line: the path is taken to fill its quotes (`"/srv/a is gone"` goes
 * whole), but for what ends a quote and is no path's (a sentence's dot or colon, a line number, a cut: `…`).
 * Bare, past a space where the text after it goes on to a separator within a few words (spacedEnd). Neither
 * asks the disk: its answer would tell a caller which of its paths exist.
 */
function otherEnd(text: string, lead: number, end: number, m: Matcher, next: NextIndex, query: boolean): number {
  const opening = text[lead - 1];
  const closing = opening === undefined ? undefined : CLOSING[opening];
  if (closing !== undefined) {
    let close = next(closing, lead);
    const line = Math.min(...["\n", "\r"].map((eol) => next(eol, lead)).filter((at) => at >= 0));
    if (close >= 0 && close - lead <= QUOTED_MAX && close < line) {
      // The path's end as a JSON string's text holds it (`\"/srv/a b\"`): its escape is the quote's.
      if (text[close - 1] === "\\" && text[lead - 2] === "\\") close--;
      return quoteEnd(text, lead, close);
    }
  }
  return spacedEnd(text, end, m, query);
}

/**
 * The end of a quoted path from `lead` to `close`, but for a sentence's dots and colons, a line number and a
 * cut after it. Walked back: a regex anchored at the end would retry from every dot of a long run.
 */
function quoteEnd(text: string, lead: number, close: number): number {
  let stop = close;
  for (;;) {
    const before = stop;
    while (stop > lead && /[.:…]/.test(text[stop - 1] as string)) stop--;
    let digits = stop;
    while (digits > lead && /\d/.test(text[digits - 1] as string)) digits--;
    if (digits < stop && text[digits - 1] === ":") stop = digits - 1;
    if (stop === before) return stop;
  }
}

/** Most words a name holding spaces is taken to have past a path's first space (`Program Files (x86)`: three). */
const SPACED_WORDS = 3;

/** What a name holding a space does not hold, as running text writes one: a quote, a list's or a setting's mark, a line. */
const SPACED_STOP = { "/": /[\s"'`‘’“”«»<>|,;:=…[\]{}\\]/, "\\": /[\s"'`‘’“”«»<>|,;:=…[\]{}]/ };

/**
 * Where a bare path ending at `end` ends, its names holding spaces included: past a space, it goes on when
 * the next separator comes within SPACED_WORDS words and NAME_MAX characters, written right after a name's
 * word (`/Users/Jane Doe/Library`, `/Volumes/My Drive/x`), not where a path of its own starts (after a space,
 * a bracket or an option: `cp /a/b /c/d`, `cc /a/b -I/c`) nor after only dots or a tilde (a relative path:
 * `/a/b ./c`). No path that
 * hideOtherPaths would look at lies inside what it reads. A name holding a space that ends the path
 * (`cd: /Users/Jane Doe: no such file`) cannot be told from the words after it: those are kept. Each look
 * ahead stops where the next path starts, so an answer of many paths costs its length.
 */
function spacedEnd(text: string, end: number, m: Matcher, query: boolean): number {
  const stops = SPACED_STOP[m.isSeparator("\\") ? "\\" : "/"];
  let stop = end;
  while (text[stop] === " ") {
    const limit = Math.min(text.length, stop + 1 + NAME_MAX);
    let words = 1;
    let word = stop + 1;
    let found = -1;
    for (let i = stop + 1; i < limit; i++) {
      const char = text[i] as string;
      if (m.isSeparator(char)) {
        // Not where a path of its own starts (` /c`, `(/c`, `-I/c`), nor a relative one (`./c`, `~/c`).
        const own = OTHER_BEFORE.test(text[i - 1] as string) || afterOption(text, i);
        if (i > word && !own && !/^[.~]+$/.test(text.slice(word, i))) found = i;
        break;
      }
      if (char === " ") {
        if (++words > SPACED_WORDS) break;
        word = i + 1;
      } else if (stops.test(char)) break;
    }
    if (found < 0) break;
    stop = pathEnd(text, found, m, query);
  }
  return stop;
}

/** The first place of a string at or after a place in one text; -1: none. */
type NextIndex = (search: string, from: number) => number;

/**
 * NextIndex for `text`, each string's place found again only once passed: asked from places that go
 * forward (a sweep's, left to right), it reads the text once per string, however many paths ask.
 */
function nextIndex(text: string): NextIndex {
  const found = new Map<string, { from: number; at: number }>();
  return (search, from) => {
    const known = found.get(search);
    if (known && from >= known.from && (known.at < 0 || from <= known.at)) return known.at;
    const at = text.indexOf(search, from);
    found.set(search, { from, at });
    return at;
  };
}

const givenNames = new WeakMap<ServerPaths, string[]>();

/**
 * Whether the `>` at `at` ends a name the sweep gave (`<project>`, `<server path>`): what follows it is the
 * rest of that path (`<home>/tmp/x`), not one from the root.
 */
function givenName(text: string, at: number, paths: ServerPaths): boolean {
  let names = givenNames.get(paths);
  if (!names) {
    names = [...new Set([SERVER_PATH, ...paths.folders.map(([, name]) => name)])];
    givenNames.set(paths, names);
  }
  return names.some((name) => text.endsWith(name, at + 1));
}

/** `paths.folders`' keys in order, and how far before a cut one may start. */
interface CutIndex {
  keys: string[];
  /** Each key's folder: its index in `paths.folders`. */
  folders: number[];
  /** The keys' first characters: where a folder's path may start. */
  firsts: ReadonlySet<string>;
  /** Most characters a folder's path is written with. */
  reach: number;
}

const cutIndexes = new WeakMap<ServerPaths, CutIndex>();

/** The CutIndex of `paths`, made once per ServerPaths (an answer's strings are swept one by one). */
function cutIndex(paths: ServerPaths, m: Matcher): CutIndex {
  let index = cutIndexes.get(paths);
  if (!index) {
    const keyed = paths.folders.map(([folder], i): [string, number] => [m.key(folder), i]);
    keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const keys = keyed.map(([key]) => key);
    const longest = Math.max(0, ...paths.folders.map(([folder]) => folder.length));
    // As inSkill: however its slashes are written (doubled, escaped twice), a folder's path is no longer than this.
    const reach = paths.separator === "/" ? longest : 4 * longest;
    index = { keys, folders: keyed.map(([, i]) => i), firsts: new Set(keys.map((key) => key[0] ?? "")), reach };
    cutIndexes.set(paths, index);
  }
  return index;
}

const sortedSkillKeys = new WeakMap<ReadonlyMap<string, string>, string[]>();

/** The keys of the skill folders that have a URI, in order. */
function skillKeys(m: Matcher): string[] {
  let keys = sortedSkillKeys.get(m.skills);
  if (!keys) {
    keys = [...m.skills].filter(([, uri]) => uri !== NO_URI).map(([key]) => key);
    keys.sort();
    sortedSkillKeys.set(m.skills, keys);
  }
  return keys;
}

/** The first place in `sorted` (ordered as strings) of a string not before `text`. */
function firstNotBefore(sorted: readonly string[], text: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as string) < text) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Whether a string of `sorted` starts with `text`. */
function startsAny(sorted: readonly string[], text: string): boolean {
  return sorted[firstNotBefore(sorted, text)]?.startsWith(text) ?? false;
}

/**
 * The first path cut short inside a folder's name, from `from` on: the text right before a cut is the start
 * of a folder of `paths.folders` (the longest such text, from where a path starts as that folder's would:
 * pathStart), past that folder's first name (`/home/an…`, `C:\\Users\\a…`; not `/ho…` nor `C:\\Us…`, the
 * start of a thousand paths). Its `end` is the cut. In a skill's own text (kind "skill"), only one that may
 * go on into a skill's folder: any other is the author's path, kept as a whole one is.
 */
function nextCut(text: string, from: number, paths: ServerPaths, m: Matcher, kind: SweepKind): Hit | undefined {
  const index = cutIndex(paths, m);
  let after = from;
  for (let cut = text.indexOf(CUT, from); cut >= 0; cut = text.indexOf(CUT, cut + 1)) {
    for (let at = Math.max(after, cut - index.reach); at < cut - 1; at++) {
      if (!index.firsts.has(m.key(text[at] as string))) continue;
      const key = m.key(text.slice(at, cut));
      if (!key.replace(ROOT_START, "").includes(paths.separator)) continue;
      for (let i = firstNotBefore(index.keys, key); index.keys[i]?.startsWith(key); i++) {
        const start = pathStart(text, at, paths.folders[index.folders[i] as number]?.[0] ?? "", paths, m);
        if (!start || (kind === "skill" && (start.inner || !startsAny(skillKeys(m), key)))) continue;
        return { ...start, at, end: cut };
      }
    }
    // A path cut short holds no earlier cut.
    after = cut + 1;
  }
  return undefined;
}

/**
 * In a skill's own text, `cut` (the first cut from `at` on; -1: none) where the path at `at` (a folder of
 * `paths.folders` starts it) is cut short inside the name of a skill's folder (`/srv/skills/Bad Na…`): the
 * text up to the cut, before `bound` and holding no character a skill folder's path never holds, starts a
 * skill folder's path. Else undefined.
 */
function cutInSkill(
  text: string,
  at: number,
  cut: number,
  bound: number,
  paths: ServerPaths,
  m: Matcher,
): number | undefined {
  // As inSkill: no skill folder is longer, however its slashes are written.
  if (cut < 0 || cut > bound || cut - at > (paths.separator === "/" ? 1 : 4) * paths.longest) return undefined;
  const path = text.slice(at, cut);
  return !FOLDER_END[paths.separator].test(path) && startsAny(skillKeys(m), m.key(path)) ? cut : undefined;
}

/** Characters no skill folder's path holds here: where the search for one ends. */
const FOLDER_END = { "/": /[\n\r\t"'`<>|\\]/, "\\": /[\n\r\t"'`<>|]/ };

/**
 * Past the longest skill folder that the path at `at` names, spaces and all (else `end`). Looks no further
 * than the longest skill folder reaches, so a line of many paths costs as many short scans.
 */
function skillFolderEnd(text: string, at: number, end: number, paths: ServerPaths, m: Matcher): number {
  const limit = Math.min(text.length, at + paths.longest);
  let found = end;
  for (let i = end + 1; i <= limit; i++) {
    if (FOLDER_END[paths.separator].test(text[i - 1] as string)) break;
    const next = text[i];
    const ends = next === undefined || m.isSeparator(next) || m.end.test(next);
    if (ends && m.skills.has(m.key(text.slice(at, i)))) found = i;
  }
  return found;
}

/**
 * `path` (its first `folderLength` characters name a folder of `paths.folders`) as a skill:// URI when a
 * skill's folder holds it, else undefined.
 */
function inSkill(path: string, folderLength: number, paths: ServerPaths, m: Matcher): string | undefined {
  // Trailing dots and colons (a sentence's end) trimmed by a walk back: a regex anchored at the end
  // would retry from every dot of a long run.
  let end = path.length;
  while (end > 0 && (path[end - 1] === "." || path[end - 1] === ":")) end--;
  const trimmed = path.slice(0, end);
  // No skill folder is longer, however its slashes are written (doubled, escaped twice): looked for within.
  const reach = folderLength + 4 * paths.longest;
  let dir = trimmed.length <= reach ? trimmed : parentOf(trimmed.slice(0, reach + 1), m);
  while (dir.length >= folderLength && dir !== "") {
    const uri = m.skills.get(m.key(dir));
    if (uri === NO_URI) return undefined;
    if (uri !== undefined) return uri + encodeRest(trimmed.slice(dir.length), m) + path.slice(trimmed.length);
    dir = parentOf(dir, m);
  }
  return undefined;
}

/** The folder holding `dir`: its last name and the separators before it dropped (or its trailing separators). */
function parentOf(dir: string, m: Matcher): string {
  let cut = dir.length;
  while (cut > 0 && m.isSeparator(dir[cut - 1])) cut--;
  if (cut < dir.length) return dir.slice(0, cut);
  while (cut > 0 && !m.isSeparator(dir[cut - 1])) cut--;
  while (cut > 0 && m.isSeparator(dir[cut - 1])) cut--;
  return dir.slice(0, cut);
}

/** The rest of a path past a skill's folder, as the rest of its URI: `/`-separated, each name encoded. */
function encodeRest(rest: string, m: Matcher): string {
  let out = "";
  let name = "";
  for (const char of rest) {
    if (!m.isSeparator(char)) name += char;
    else if (name !== "" || out === "") {
      out += `${encodeURIComponent(name)}/`;
      name = "";
    }
  }
  return out + encodeURIComponent(name);
}
