import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";
import { readNamedText } from "../util/named-file.ts";

/**
 * Words that say what a project is made of, each with a weight: its languages (by file extension), its
 * tools (by the files that configure them) and its dependencies (by name, from its manifests). A skill
 * whose name or description holds them is likely useful there before anything was ever loaded.
 */
export type ProjectTerms = ReadonlyMap<string, number>;

/** A language or a tool the project is built with. */
const LANGUAGE = 3;
/** A library the project depends on. */
const DEPENDENCY = 1;

/** Extensions → words. Words shorter than 3 letters (go, r, c) match ordinary prose, so they are spelt out. */
const BY_EXTENSION: Readonly<Record<string, readonly string[]>> = {
  ts: ["typescript", "javascript"],
  tsx: ["typescript", "react"],
  js: ["javascript"],
  jsx: ["javascript", "react"],
  mjs: ["javascript"],
  cjs: ["javascript"],
  vue: ["vue"],
  svelte: ["svelte"],
  py: ["python"],
  ipynb: ["jupyter", "python"],
  go: ["golang"],
  rs: ["rust"],
  rb: ["ruby"],
  java: ["java"],
  kt: ["kotlin"],
  swift: ["swift", "ios"],
  cs: ["csharp", "dotnet"],
  cpp: ["c++", "cpp"],
  cc: ["c++", "cpp"],
  php: ["php"],
  dart: ["dart", "flutter"],
  sql: ["sql", "database"],
  tf: ["terraform"],
  sh: ["bash", "shell"],
  tex: ["latex"],
  html: ["html"],
  css: ["css"],
  scss: ["css", "sass"],
  csv: ["csv"],
  pdf: ["pdf"],
  docx: ["docx", "word"],
  xlsx: ["xlsx", "excel", "spreadsheet"],
  pptx: ["pptx", "powerpoint"],
  proto: ["protobuf", "grpc"],
  graphql: ["graphql"],
};

/** Files (or folders) at the project root that name a tool. */
const BY_FILE: Readonly<Record<string, readonly string[]>> = {
  "package.json": ["node.js", "npm"],
  "bun.lock": ["bun"],
  "pyproject.toml": ["python"],
  "requirements.txt": ["python"],
  "go.mod": ["golang"],
  "Cargo.toml": ["rust"],
  Gemfile: ["ruby"],
  "pom.xml": ["java", "maven"],
  "build.gradle": ["java", "gradle"],
  Dockerfile: ["docker"],
  "docker-compose.yml": ["docker"],
  "compose.yaml": ["docker"],
  ".github": ["github actions"],
  ".gitlab-ci.yml": ["gitlab"],
  "next.config.js": ["next.js", "react"],
  "tsconfig.json": ["typescript"],
};

/** Files every other project has: a word, but a weak one. */
const COMMON_FILES: Readonly<Record<string, readonly string[]>> = { ".git": ["git"], ".github": ["github"] };

/** Folders looked into, one level, beside the root (where a project's sources usually are). */
const SOURCE_FOLDERS = new Set([
  "src",
  "lib",
  "app",
  "apps",
  "packages",
  "scripts",
  "cmd",
  "pkg",
  "notebooks",
  "test",
  "tests",
]);

/**
 * Dependency names that are ordinary words in a description ("the next step", "run the test"): a
 * scoped package named so is known by its scope (`@playwright/test` → playwright), others are left out.
 */
const PROSE = new Set([
  "test",
  "next",
  "core",
  "utils",
  "types",
  "common",
  "cli",
  "api",
  "app",
  "lib",
  "client",
  "server",
  "config",
  "build",
  "react-dom",
  "plugin",
]);

/** Packages known by another word in prose. */
const KNOWN_AS: Readonly<Record<string, string>> = { next: "next.js" };

/** A dependency's word: `@scope/name` → name, or the scope when the name is an ordinary word. */
function dependencyWord(name: string): string {
  if (KNOWN_AS[name]) return KNOWN_AS[name] as string;
  const scoped = /^@([^/]+)\/(.+)$/.exec(name);
  if (!scoped) return name;
  return PROSE.has(scoped[2] as string) ? (scoped[1] as string) : (scoped[2] as string);
}

/** Most entries read per folder, and most dependency names kept: a huge folder or manifest is sampled. */
const MAX_ENTRIES = 1000;
const MAX_DEPENDENCIES = 60;
/** Largest manifest read. */
const MAX_MANIFEST_BYTES = 256 * 1024;

/**
 * The project's words (ProjectTerms), from its root folder and the source folders in it, one level deep,
 * and its package.json, requirements.txt and pyproject.toml. Reads a few folders and files, bounded;
 * nothing when there is no project root. A word found again keeps its highest weight.
 */
export function projectTerms(projectDir: string | null): ProjectTerms {
  const terms = new Map<string, number>();
  if (!projectDir) return terms;
  const add = (words: readonly string[], weight: number) => {
    for (const word of words) terms.set(word, Math.max(terms.get(word) ?? 0, weight));
  };
  const root = listing(projectDir);
  for (const entry of root) {
    const tool = BY_FILE[entry.name];
    if (tool) add(tool, LANGUAGE);
    const common = COMMON_FILES[entry.name];
    if (common) add(common, DEPENDENCY);
    if (entry.isFile()) add(BY_EXTENSION[extensionOf(entry.name)] ?? [], LANGUAGE);
    else if (entry.isDirectory() && SOURCE_FOLDERS.has(entry.name))
      for (const inner of listing(join(projectDir, entry.name)))
        if (inner.isFile()) add(BY_EXTENSION[extensionOf(inner.name)] ?? [], LANGUAGE);
  }
  add(dependencies(projectDir), DEPENDENCY);
  return terms;
}

function listing(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).slice(0, MAX_ENTRIES);
  } catch {
    return [];
  }
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? "" : name.slice(dot + 1).toLowerCase();
}

/** Dependency names from package.json, requirements.txt and pyproject.toml, as words (`@scope/x` → `x`). */
function dependencies(projectDir: string): string[] {
  const names: string[] = [];
  const text = (file: string) => {
    // Bounded and non-blocking: a manifest is the project's own file, but may be anything under that name.
    const read = readNamedText({ path: join(projectDir, file), maxBytes: MAX_MANIFEST_BYTES, within: projectDir });
    return read.ok ? read.text : "";
  };
  try {
    const pkg = JSON.parse(text("package.json") || "{}") as Record<string, unknown>;
    for (const key of ["dependencies", "devDependencies", "peerDependencies"]) {
      const deps = pkg[key];
      if (deps && typeof deps === "object") names.push(...Object.keys(deps));
    }
  } catch {
    // Not JSON: no names from it.
  }
  for (const line of text("requirements.txt").split("\n")) {
    const name = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(line)?.[1];
    if (name) names.push(name);
  }
  // pyproject.toml: the quoted requirement strings of its dependency lists ("pandas>=2", "scanpy").
  const pyproject = text("pyproject.toml");
  for (const match of pyproject.matchAll(/^\s*"([A-Za-z0-9][A-Za-z0-9._-]*)[^"\n]*",?\s*$/gm))
    names.push(match[1] as string);
  const words = names
    .map((name) => dependencyWord(name.toLowerCase()))
    .filter((name) => name.length >= 3 && !PROSE.has(name) && /^[a-z0-9][a-z0-9._-]*$/.test(name));
  return [...new Set(words)].slice(0, MAX_DEPENDENCIES);
}
