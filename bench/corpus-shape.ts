/**
 * Measures what the real skill collections hold besides SKILL.md (resource folders, files, sizes) and
 * writes it to bench/lib/corpus-shapes.json, which `make bench` follows when it generates skills
 * (lib/skills.ts). The corpora under ../shared/corpora keep only the SKILL.md files; this reads the
 * git snapshots they were copied from.
 * Usage: bun bench/corpus-shape.ts CORPUS=GIT_DIR ... [--write]
 *   e.g. anthropics-skills=/path/to/anthropics/skills/.git (the corpus folder name, then the repository)
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, extname, join } from "node:path";

/** A skill's files besides SKILL.md: its relative path and size in bytes. */
export type ShapeFile = [path: string, bytes: number];

/** Per skill that has any: "<corpus folder>/<path of its SKILL.md>" → its other files. */
export type CorpusShapes = Record<string, ShapeFile[]>;

export const SHAPES_FILE = join(import.meta.dir, "lib", "corpus-shapes.json");

/** Every blob of the repository at HEAD, path → size. */
function blobs(gitDir: string): Map<string, number> {
  const out = execFileSync("git", ["--git-dir", gitDir, "ls-tree", "-r", "-l", "-z", "HEAD"], {
    maxBuffer: 1 << 28,
  }).toString("utf8");
  const files = new Map<string, number>();
  for (const entry of out.split("\0")) {
    const tab = entry.indexOf("\t");
    if (tab < 0) continue;
    const [, type, , size] = entry.slice(0, tab).split(/\s+/);
    if (type === "blob") files.set(entry.slice(tab + 1), Number(size) || 0);
  }
  return files;
}

/** Each skill's files besides its SKILL.md, without those of a skill nested inside it. */
export function shapesOf(corpus: string, files: Map<string, number>): CorpusShapes {
  const skills = new Set([...files.keys()].filter((p) => p === "SKILL.md" || p.endsWith("/SKILL.md")).map(dirname));
  const owner = (path: string) => {
    for (let d = dirname(path); ; d = dirname(d)) {
      if (skills.has(d)) return d;
      if (d === "." || d === "/") return undefined;
    }
  };
  const shapes: CorpusShapes = {};
  for (const skill of skills) shapes[`${corpus}/${skill === "." ? "" : `${skill}/`}SKILL.md`] = [];
  for (const [path, size] of files) {
    const skill = owner(path);
    if (skill === undefined || path === (skill === "." ? "SKILL.md" : `${skill}/SKILL.md`)) continue;
    const rel = skill === "." ? path : path.slice(skill.length + 1);
    shapes[`${corpus}/${skill === "." ? "" : `${skill}/`}SKILL.md`]?.push([rel, size]);
  }
  return shapes;
}

/** Folders below a skill's own that hold its files (each folder once, parents included). */
export function foldersOf(files: readonly ShapeFile[]): number {
  const folders = new Set<string>();
  for (const [path] of files) for (let d = dirname(path); d !== "."; d = dirname(d)) folders.add(d);
  return folders.size;
}

/** The proportions a generated collection follows, for the report. */
export function proportions(shapes: CorpusShapes) {
  const all = Object.values(shapes);
  const sizes = all.flat().map(([, bytes]) => bytes);
  const sorted = [...sizes].sort((a, b) => a - b);
  return {
    skills: all.length,
    withFiles: all.filter((f) => f.length > 0).length,
    filesPerSkill: sizes.length / all.length,
    foldersPerSkill: all.reduce((n, f) => n + foldersOf(f), 0) / all.length,
    medianFileBytes: sorted[sorted.length >> 1] ?? 0,
    meanFileBytes: sizes.reduce((a, b) => a + b, 0) / Math.max(1, sizes.length),
    bytesPerSkill: sizes.reduce((a, b) => a + b, 0) / all.length,
  };
}

if (import.meta.main) {
  const pairs = process.argv.slice(2).filter((a) => a.includes("="));
  if (pairs.length === 0) {
    process.stderr.write("usage: bun bench/corpus-shape.ts CORPUS=GIT_DIR ... [--write]\n");
    process.exit(2);
  }
  const shapes: CorpusShapes = {};
  for (const pair of pairs) {
    const [corpus, gitDir] = pair.split("=") as [string, string];
    const one = shapesOf(corpus, blobs(gitDir));
    const p = proportions(one);
    process.stdout.write(
      `${corpus}: ${p.skills} skills, ${p.withFiles} with files; ${p.foldersPerSkill.toFixed(2)} folders and ${p.filesPerSkill.toFixed(2)} files per skill\n`,
    );
    Object.assign(shapes, one);
  }
  const p = proportions(shapes);
  const exts = new Map<string, number>();
  for (const [path] of Object.values(shapes).flat())
    exts.set(extname(path) || "(none)", (exts.get(extname(path) || "(none)") ?? 0) + 1);
  process.stdout.write(
    `all: ${p.skills} skills, ${p.withFiles} with files; per skill ${p.foldersPerSkill.toFixed(2)} folders, ${p.filesPerSkill.toFixed(2)} files, ${Math.round(p.bytesPerSkill / 1024)} KB; file size median ${Math.round(p.medianFileBytes / 1024)} KB, mean ${Math.round(p.meanFileBytes / 1024)} KB\n`,
  );
  process.stdout.write(
    `extensions: ${[...exts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([e, n]) => `${e} ${n}`)
      .join(", ")}\n`,
  );
  if (process.argv.includes("--write")) {
    writeFileSync(SHAPES_FILE, `${JSON.stringify(shapes)}\n`);
    process.stdout.write(`wrote ${SHAPES_FILE}\n`);
  }
}
