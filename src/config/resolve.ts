import { dirname, isAbsolute, join, resolve as resolvePath } from "node:path";
import type { z } from "zod";
import { closeNames, closestWord } from "../util/close-names.ts";
import { ConfigError } from "../util/errors.ts";
import { expandHome } from "../util/home-path.ts";
import { LOG_LEVELS } from "../util/logger.ts";
import { isMapping } from "../util/mapping.ts";
import { configDefaults } from "./defaults.ts";
import { FLAG_SETTINGS } from "./flag-settings.ts";
import { inRepositoryCopies } from "./repository-copies.ts";
import { type Config, configSchema, configSchemaOf, JITLESS } from "./schema.ts";
import { ENV_SETTINGS, SECRET_KEYS, type Setting, type ValueKind } from "./settings.ts";

/** A config file already read and parsed (YAML → plain value). */
export interface ConfigFile {
  path: string;
  data: unknown;
}

export interface ResolveInput {
  /** Process environment. */
  env: Record<string, string | undefined>;
  /** Parsed flags, keyed by flag name without dashes (see settings.ts). */
  flags?: Record<string, unknown>;
  /** Config files, lowest precedence first (~/.skillhub/config.yaml, then a source root's). */
  files?: ConfigFile[];
  /** The user's home directory. */
  homeDir: string;
  /** Base for relative paths. */
  cwd: string;
  /** path.delimiter of the platform (":" or ";"). Default ":". */
  pathDelimiter?: string;
  /**
   * An absolute path with its links followed (as far as it exists), to tell whether a skills folder lies in
   * SkillHub's repository copies. Default: the path as written (resolution reads no file); the loader
   * passes the file system's.
   */
  realPath?: (path: string) => string;
}

export interface Resolved {
  config: Config;
  /** Unknown keys in config files and similar non-fatal remarks. */
  warnings: string[];
}

interface Assignment {
  path: string[];
  value: unknown;
  origin: string;
  /** The config file that set it. */
  file?: string;
  secret?: boolean;
  /** Set as a consequence of another key (settings.ts `implies`), not by the user. */
  implied?: boolean;
}

/**
 * Merge defaults < files < environment < flags and validate once. Pure: reads nothing but its
 * input. Throws ConfigError naming the key, the value and what is allowed.
 */
export function resolveConfig(input: ResolveInput): Resolved {
  const warnings: string[] = [];
  const assignments: Assignment[] = [];
  const delimiter = input.pathDelimiter ?? ":";

  for (const file of input.files ?? []) assignments.push(...fileAssignments(file, warnings));

  warnings.push(...mistypedVariables(input.env));
  // A value that cannot be read is named with every other wrong one, at the end.
  const unreadable: ConfigError[] = [];
  const read = (raw: string, setting: Setting, origin: string) => {
    try {
      return convert(raw, setting, origin, delimiter);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      unreadable.push(error);
      return undefined;
    }
  };
  const envDirs: NamedDir[] = [];
  for (const [name, setting] of Object.entries(ENV_SETTINGS)) {
    const raw = input.env[name];
    if (raw === undefined || raw === "") continue;
    const origin = `${name} (environment variable)`;
    const value = read(raw, setting, origin);
    if (value === undefined) continue;
    if (setting.key === "sources.dirs") {
      envDirs.push(...(value as string[]).map((dir) => ({ dir, origin })));
      continue;
    }
    assignments.push({ path: setting.key.split("."), value, origin, secret: setting.secret });
    for (const [key, implied] of Object.entries(setting.implies ?? {})) {
      assignments.push({ path: key.split("."), value: implied, origin, implied: true });
    }
  }

  const flagDirs: NamedDir[] = [];
  for (const [name, raw] of Object.entries(input.flags ?? {})) {
    const setting = FLAG_SETTINGS[name];
    if (!setting || raw === undefined || raw === false) continue;
    const origin = `--${name}`;
    if (setting.key === "sources.dirs") {
      flagDirs.push(...(raw as string[]).map((dir) => ({ dir, origin })));
      continue;
    }
    // --no-watch is the one negative flag.
    const value =
      name === "no-watch" || name === "no-prompts" ? false : typeof raw === "string" ? read(raw, setting, origin) : raw;
    if (value === undefined) continue;
    assignments.push({ path: setting.key.split("."), value, origin, secret: setting.secret });
  }

  // Start from the defaults so that maps (scripts.runners) merge key by key.
  const defaults = configDefaults(join(input.homeDir, ".skillhub")) as Record<string, unknown>;
  const raw = structuredClone(defaults);
  const origins = new Map<string, Assignment>();
  for (const a of assignments) {
    setDeep(raw, a.path, a.value);
    const key = a.path.join(".");
    if (!a.implied || !origins.has(key)) origins.set(key, a);
  }
  impliedAnalytics(raw, assignments);

  // Only what differs from the defaults is validated (they are valid: a test checks it), so a start
  // builds the schema of the few settings it changes rather than all of them.
  const changed = Object.keys(raw).filter((key) => JSON.stringify(raw[key]) !== JSON.stringify(defaults[key]));
  const schema = configSchemaOf(changed) ?? configSchema();
  const parsed = schema.safeParse(raw, JITLESS);
  if (!parsed.success || unreadable.length > 0)
    throw toConfigError(unreadable, parsed.success ? [] : parsed.error.issues, raw, origins);
  const config = { ...raw, ...parsed.data } as Config;
  // The folders of --skills-dir and SKILLS_DIR come before those of the config files, never instead of them
  // (`skillhub add --global DIR` writes there): a one-off folder must not hide the user's own skills. Only
  // the files' list is checked by the schema, so that a wrong entry is named by its place in its file.
  const fileDirs = config.sources.dirs.map((dir) => ({
    dir,
    origin: origins.get("sources.dirs")?.origin ?? "sources.dirs",
  }));
  const named = [...flagDirs, ...envDirs, ...fileDirs];
  const dirs = named.map((entry) => entry.dir);
  const resolved = normalisePaths({ ...config, sources: { ...config.sources, dirs } }, input);
  const copies = inCopies(named, resolved.home, input, origins.get("sources.dirs")?.file);
  if (copies) throw copies;
  return { config: resolved, warnings };
}

/** A skills folder as it was given, and the flag, variable or file that gave it. */
interface NamedDir {
  dir: string;
  origin: string;
}

/**
 * The error for the first of `dirs` that lies in SkillHub's repository copies (inRepositoryCopies), or
 * undefined. `file` is the config file that set `sources.dirs`, if one did.
 */
function inCopies(
  dirs: readonly NamedDir[],
  home: string,
  input: ResolveInput,
  file?: string,
): ConfigError | undefined {
  for (const { dir, origin } of dirs) {
    const why = inRepositoryCopies(resolvePath(input.cwd, expandHome(dir, input.homeDir)), home, input.realPath);
    if (why === undefined) continue;
    const message = `Invalid configuration: ${origin} = ${JSON.stringify(dir)}: ${why}`;
    const fromFile = origin.startsWith("sources.dirs in ") ? file : undefined;
    return new ConfigError(message, {
      key: origin,
      value: dir,
      allowed: "a skills folder outside SkillHub's repository copies",
      ...(fromFile === undefined ? {} : { file: fromFile, problems: [{ message, file: fromFile }] }),
    });
  }
  return undefined;
}

/**
 * Analytics is on when an endpoint or a file is configured, from
 * any layer (a config file's analytics.file too, not only the environment).
 * An `analytics.enabled` set explicitly anywhere, `false` included, wins.
 */
function impliedAnalytics(raw: Record<string, unknown>, assignments: readonly Assignment[]): void {
  const analytics = raw.analytics;
  if (!isMapping(analytics)) return;
  const explicit = assignments.findLast((a) => !a.implied && a.path.join(".") === "analytics.enabled");
  const set = (value: unknown) => typeof value === "string" && value.trim() !== "";
  // The environment's implied `true` (ANALYTICS_ENDPOINT) does not override an explicit value from a file.
  analytics.enabled = explicit ? explicit.value : set(analytics.endpoint) || set(analytics.file);
}

function normalisePaths(config: Config, input: ResolveInput): Config {
  const abs = (p: string) => {
    const expanded = expandHome(p, input.homeDir);
    return isAbsolute(expanded) ? expanded : resolvePath(input.cwd, expanded);
  };
  return {
    ...config,
    home: abs(config.home),
    cache_path: config.cache_path === undefined ? undefined : abs(config.cache_path),
    sources: {
      ...config.sources,
      // A folder named twice (by a flag and in a file, `/a/b/` or `/a/b`) is one, searched at its first place.
      dirs: [...new Set(config.sources.dirs.map((dir) => resolvePath(abs(dir))))],
      project_dirs: config.sources.project_dirs.map(abs),
      project: config.sources.project === undefined ? undefined : abs(config.sources.project),
    },
    filters: {
      enabled_skills: config.filters.enabled_skills.map((s) => s.trim().toLowerCase()).filter(Boolean),
      enabled_categories: config.filters.enabled_categories.map((s) => s.trim().toLowerCase()).filter(Boolean),
    },
    analytics: { ...config.analytics, file: config.analytics.file ? abs(config.analytics.file) : "" },
    lock: { ...config.lock, file: config.lock.file === undefined ? undefined : abs(config.lock.file) },
    trust: {
      ...config.trust,
      allowed_signers: config.trust.allowed_signers === undefined ? undefined : abs(config.trust.allowed_signers),
    },
    plugins: { ...config.plugins, dir: config.plugins.dir === undefined ? undefined : abs(config.plugins.dir) },
    // A repository given as a local path is one from here, like a skills folder: git, run in SkillHub's
    // own folder, would otherwise look for `../team-skills` there and answer that it does not exist.
    git: {
      ...config.git,
      repos: config.git.repos.map((repo) =>
        typeof repo === "string"
          ? isLocalPath(repo)
            ? abs(repo.trim())
            : repo
          : isLocalPath(repo.url)
            ? { ...repo, url: abs(repo.url.trim()) }
            : repo,
      ),
    },
  };
}

/**
 * Whether a repository is a local path as git reads one: no `scheme://`, and no `host:` before the first
 * slash (scp-like `git@host:team/skills`); a Windows drive is a path. A `-` start is refused elsewhere.
 */
function isLocalPath(repo: string): boolean {
  const text = repo.trim();
  if (text === "" || text.startsWith("-") || /^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return false;
  if (/^[A-Za-z]:[\\/]/.test(text)) return true;
  const colon = text.indexOf(":");
  const slash = text.indexOf("/");
  return colon < 0 || (slash >= 0 && slash < colon);
}

/** `SKILLHUB_*` variables that are no setting: the marker run_skill_command gives its processes, a client config's header. */
const NOT_SETTINGS = new Set(["SKILLHUB_RUN_ID", "SKILLHUB_AUTHORIZATION"]);
const PREFIX = "SKILLHUB_";

/**
 * A `SKILLHUB_*` variable that is no setting but close to one (`SKILLHUB_TOOL` for `SKILLHUB_TOOLS`): a
 * warning naming the setting, as a mistyped config key gets. Another program's variable stays unsaid.
 */
function mistypedVariables(env: Record<string, string | undefined>): string[] {
  const settings = Object.keys(ENV_SETTINGS).filter((name) => name.startsWith(PREFIX));
  const out: string[] = [];
  for (const name of Object.keys(env)) {
    if (!name.startsWith(PREFIX) || name in ENV_SETTINGS || NOT_SETTINGS.has(name)) continue;
    // closestWord, not closeNames: a name that merely holds a setting's (`SKILLHUB_NPM_TOOLS`) is another's.
    const close = closestWord(
      name.slice(PREFIX.length),
      settings.map((s) => s.slice(PREFIX.length).toLowerCase()),
    );
    if (close !== undefined)
      out.push(`variable ${name} is ignored: no setting has that name. Did you mean ${PREFIX}${close.toUpperCase()}?`);
  }
  return out;
}

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off"]);

function convert(text: string, setting: Setting, origin: string, delimiter: string): unknown {
  const value = text.trim();
  const fail = (allowed: string) =>
    new ConfigError(`Invalid configuration: ${origin} = ${shown(text, setting.secret)}: expected ${allowed}.`, {
      key: origin,
      value: setting.secret ? "<redacted>" : text,
      allowed,
    });
  const kinds: Record<ValueKind, () => unknown> = {
    string: () => value,
    int: () => {
      if (!/^-?\d+$/.test(value)) throw fail("a whole number");
      return Number(value);
    },
    number: () => {
      const n = Number(value);
      if (value === "" || !Number.isFinite(n)) throw fail("a number");
      return n;
    },
    bool: () => {
      const lower = value.toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
      throw fail("one of 1, true, yes, on, 0, false, no, off");
    },
    list: () =>
      value
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    pathlist: () =>
      value
        .split(delimiter)
        .map((s) => s.trim())
        .filter(Boolean),
    loglevel: () => {
      const upper = value.toUpperCase() === "WARNING" ? "WARN" : value.toUpperCase();
      if (!(LOG_LEVELS as readonly string[]).includes(upper)) throw fail(`one of ${LOG_LEVELS.join(", ")}`);
      return upper;
    },
  };
  return kinds[setting.kind]();
}

function shown(value: unknown, secret?: boolean): string {
  if (secret) return "<redacted>";
  // YAML's .nan and .inf are numbers JSON has no text for.
  return typeof value === "number" && !Number.isFinite(value) ? String(value) : JSON.stringify(value);
}

/** The schema's types, as a config file's reader names them. */
const TYPE_NAMES: Record<string, string> = {
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  string: "a text",
  array: "a list",
  object: "a mapping of settings",
};

/** A single value where a list is expected: the list form that holds it, as YAML writes it. */
function listForm(issue: z.core.$ZodIssue | undefined, value: unknown): string {
  if (issue?.code !== "invalid_type" || issue.expected !== "array") return "";
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") return "";
  if (String(value).length > 200) return "";
  return ` (a list of one is written [${JSON.stringify(value)}])`;
}

/** What a schema issue allows, in words ("expected a whole number of at least 1"), not zod's notation. */
function allowedBy(issue: z.core.$ZodIssue): string {
  const bound = (limit: number | bigint, inclusive: boolean | undefined, side: "least" | "most") =>
    inclusive === false ? `${side === "least" ? "above" : "below"} ${limit}` : `of at ${side} ${limit}`;
  switch (issue.code) {
    case "invalid_type":
      return `expected ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case "invalid_value":
      return `expected one of ${issue.values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ")}`;
    case "too_small":
    case "too_big": {
      const limit = issue.code === "too_small" ? issue.minimum : issue.maximum;
      const side = issue.code === "too_small" ? "least" : "most";
      if (issue.origin === "string")
        return Number(limit) === 1 && side === "least"
          ? "expected a non-empty text"
          : `expected ${bound(limit, issue.inclusive, side)} characters`;
      if (issue.origin === "array") return `expected ${bound(limit, issue.inclusive, side)} entries`;
      // Past the largest exact whole number (1e99): no count is that large.
      if (Number(limit) >= Number.MAX_SAFE_INTEGER) return "expected a whole number";
      return `expected a number ${bound(limit, issue.inclusive, side)}`;
    }
    default:
      return issue.message.replace(/^Invalid input: /, "");
  }
}

/** Turn a file's nested object into leaf assignments; unknown keys become warnings. */
function fileAssignments(file: ConfigFile, warnings: string[]): Assignment[] {
  const out: Assignment[] = [];
  if (file.data === null || file.data === undefined) return out;
  if (!isMapping(file.data)) {
    throw new ConfigError(
      `Invalid configuration: ${file.path} must hold a YAML mapping of settings, not ${typeName(file.data)}.`,
      {
        key: file.path,
      },
    );
  }
  const walk = (value: Record<string, unknown>, path: string[], shape: z.ZodType | undefined) => {
    for (const [key, child] of Object.entries(value)) {
      const childPath = [...path, key];
      const childSchema = objectShape(shape)?.[key];
      if (!childSchema) {
        // `git.repo` for `git.repos`: the closest key of the same section, as a mistyped option is answered.
        const [close] = closeNames(key, Object.keys(objectShape(shape) ?? {}), 1);
        const elsewhere = keysNamed(key).filter((k) => k !== childPath.join("."));
        const hint =
          close !== undefined
            ? ` Did you mean "${[...path, close].join(".")}"?`
            : elsewhere.length > 0
              ? ` Did you mean ${elsewhere.map((k) => `"${k}"`).join(" or ")}?`
              : "";
        warnings.push(`${file.path}: unknown key "${childPath.join(".")}" ignored.${hint}`);
        continue;
      }
      const childShape = objectShape(childSchema);
      // A section left empty (`server:` with every key below it commented out) sets nothing.
      if (childShape && child === null) continue;
      if (childShape && isMapping(child)) walk(child, childPath, childSchema);
      else if (isRecordSchema(childSchema) && isMapping(child)) {
        for (const [k, v] of Object.entries(child))
          out.push({
            path: [...childPath, k],
            value: v,
            origin: `${shownKey([...childPath, k])} in ${file.path}`,
            file: file.path,
          });
      } else {
        const value = fromFileFolder(childPath.join("."), child, dirname(file.path));
        out.push({ path: childPath, value, origin: `${childPath.join(".")} in ${file.path}`, file: file.path });
      }
    }
  };
  walk(file.data, [], configSchema());
  return out;
}

/**
 * Keys whose values are paths on this machine (git.repos: those of its entries that are local paths); each
 * is made absolute, `~` expanded, by normalisePaths.
 */
const PATH_KEYS = new Set([
  "home",
  "cache_path",
  "sources.dirs",
  "sources.project_dirs",
  "sources.project",
  "analytics.file",
  "plugins.dir",
  "lock.file",
  "trust.allowed_signers",
]);

/**
 * A relative path in a config file is relative to that file's folder, as in most tools' config files:
 * the server's working folder is whatever the MCP client started it in, often `/` or the home folder.
 * `~` paths and those of the environment and flags are resolved later (normalisePaths).
 */
function fromFileFolder(key: string, value: unknown, folder: string): unknown {
  const anchor = (path: unknown, local = true) =>
    typeof path === "string" && local && path.trim() !== "" && !/^~([\\/]|$)/.test(path) && !isAbsolute(path)
      ? resolvePath(folder, path)
      : path;
  if (PATH_KEYS.has(key)) return Array.isArray(value) ? value.map((path) => anchor(path)) : anchor(value);
  if (key !== "git.repos" || !Array.isArray(value)) return value;
  return value.map((repo) =>
    typeof repo === "string"
      ? repoFrom(folder, repo)
      : isMapping(repo) && typeof repo.url === "string"
        ? { ...repo, url: repoFrom(folder, repo.url) }
        : repo,
  );
}

/** A repository written in a file of `folder`: a relative local path is taken from that folder. */
export function repoFrom(folder: string, repo: string): string {
  const url = repo.trim();
  return isLocalPath(url) && !/^~([\\/]|$)/.test(url) && !isAbsolute(url) ? resolvePath(folder, url) : url;
}

/** The settings whose last part is `name` (`tools` → `server.tools`): a key put in the wrong section. */
function keysNamed(name: string): string[] {
  const out: string[] = [];
  const walk = (shape: Record<string, z.ZodType> | undefined, path: string[]) => {
    for (const [key, child] of Object.entries(shape ?? {})) {
      if (key === name && path.length > 0) out.push([...path, key].join("."));
      walk(objectShape(child), [...path, key]);
    }
  };
  walk(objectShape(configSchema()), []);
  return out.slice(0, 3);
}

type Def = { innerType?: z.ZodType; type?: string; shape?: Record<string, z.ZodType> };
const defOf = (schema: z.ZodType | undefined): Def | undefined =>
  (schema as unknown as { _zod?: { def: Def } })?._zod?.def;

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  while (defOf(current)?.innerType) current = defOf(current)?.innerType;
  return current;
}

function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> | undefined {
  const def = defOf(unwrap(schema));
  return def?.type === "object" ? def.shape : undefined;
}

function isRecordSchema(schema: z.ZodType): boolean {
  return defOf(unwrap(schema))?.type === "record";
}

function typeName(value: unknown): string {
  return Array.isArray(value) ? "a list" : value === null ? "null" : `a ${typeof value}`;
}

function setDeep(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (!isMapping(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1];
  if (last !== undefined) node[last] = value;
}

/** A setting's dotted name; a name of its own that holds a dot (a runner's `.rb`) is quoted. */
function shownKey(path: string[]): string {
  return path.map((k) => (k.includes(".") ? JSON.stringify(k) : k)).join(".");
}

function getDeep(target: unknown, path: PropertyKey[]): unknown {
  let node = target;
  for (const key of path)
    node = isMapping(node) || Array.isArray(node) ? (node as Record<PropertyKey, unknown>)[key] : undefined;
  return node;
}

function toConfigError(
  unreadable: readonly ConfigError[],
  issues: readonly z.core.$ZodIssue[],
  raw: Record<string, unknown>,
  origins: Map<string, Assignment>,
): ConfigError {
  // Every key that is wrong, not only the first: fixing them one start at a time wastes the user's time.
  const found = [...unreadable, ...issues.map((issue) => issueError(issue, raw, origins))];
  // Each problem with the file that set it: loadConfig sets aside a skills folder's file that has one.
  const problems = found.map((e) => ({ message: e.message, file: e.details.file }));
  const first = found[0] as ConfigError;
  const texts = [...new Set(found.map((e) => e.message.replace(/^Invalid configuration: /, "")))];
  // One problem said twice (a value read through two settings) is one problem.
  if (texts.length === 1) return new ConfigError(first.message, { ...first.details, problems });
  const shown = texts.slice(0, ISSUES_SHOWN).map((text) => `  ${text}`);
  if (texts.length > ISSUES_SHOWN) shown.push(`  … and ${texts.length - ISSUES_SHOWN} more.`);
  return new ConfigError(`Invalid configuration, ${texts.length} problems:\n${shown.join("\n")}`, {
    ...first.details,
    problems,
  });
}

/** Most invalid keys named at once. */
const ISSUES_SHOWN = 10;

function issueError(issue: z.core.$ZodIssue, raw: Record<string, unknown>, origins: Map<string, Assignment>) {
  const path = issue.path.map(String);
  let origin: Assignment | undefined;
  for (let n = path.length; n > 0 && !origin; n--) origin = origins.get(path.slice(0, n).join("."));
  // A list's entry is named by its place in the list (`entry 2`), the key by the list's own.
  const entry = typeof issue.path.at(-1) === "number" ? Number(issue.path.at(-1)) + 1 : undefined;
  const key = shownKey(entry === undefined ? path : path.slice(0, -1)) || "(root)";
  const value = getDeep(raw, issue.path);
  const named = origin ? `${origin.origin}${origin.origin.includes(key) ? "" : ` (config key ${key})`}` : key;
  const where = entry === undefined ? named : `${named}, entry ${entry}`;
  // Security: a key set in a config file is as secret as one from the environment.
  const secret = origin?.secret || SECRET_KEYS.has(key);
  const allowed = allowedBy(issue) + (secret ? "" : listForm(issue, value));
  return new ConfigError(`Invalid configuration: ${where} = ${shown(value, secret)}: ${allowed}.`, {
    key,
    value: secret ? "<redacted>" : value,
    allowed,
    ...(origin?.file === undefined ? {} : { file: origin.file }),
  });
}
