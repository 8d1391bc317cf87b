/**
 * Generated skill sets for benchmarks, shaped like the real collections: skill i is a real SKILL.md from
 * the corpora (renamed to be unique) with the resource folders and files that skill has in its repository
 * (corpus-shapes.json, measured by bench/corpus-shape.ts: paths and sizes, content made up). Without the
 * corpora, synthetic SKILL.md text with the measured shapes taken in turn.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { Glob } from "bun";
import { type CorpusShapes, foldersOf, type ShapeFile } from "../corpus-shape.ts";

const corpora = process.env.SKILLHUB_CORPORA ?? join(import.meta.dir, "..", "..", "..", "shared", "corpora");

const shapes = JSON.parse(readFileSync(join(import.meta.dir, "corpus-shapes.json"), "utf8")) as CorpusShapes;

interface Sample {
  text: string;
  files: readonly ShapeFile[];
}

function samples(): Sample[] {
  if (!existsSync(corpora)) {
    return Object.values(shapes).map((files, i) => ({
      text: `---\nname: x\ndescription: Synthetic skill ${i} about topic ${i % 7} for benchmarks.\n---\n\n# Topic ${i}\n\n${"Some instructions. ".repeat(200)}\n`,
      files,
    }));
  }
  return [...new Glob("**/SKILL.md").scanSync({ cwd: corpora, dot: true })].sort().map((path) => ({
    text: readFileSync(join(corpora, path), "utf8"),
    files: shapes[path] ?? [],
  }));
}

/** File types the corpora hold as binary (fonts, images, archives): written with NUL bytes, as such files have. */
const BINARY = new Set([".ttf", ".otf", ".png", ".jpg", ".gif", ".pdf", ".gz", ".zip", ".woff", ".woff2", ".ico"]);

/** Content for the made-up files, cut to each file's size (the largest in the corpora is 242 KB). */
const TEXT = Buffer.from("Reference notes for the skill: steps, examples and options.\n".repeat(8192));
const BYTES = Buffer.alloc(TEXT.length, 0).fill("\u0000binary\u00ff");

/** A generated collection: the skills' names, and the folders, files and bytes written for them. */
export interface Corpus {
  names: string[];
  folders: number;
  files: number;
  bytes: number;
}

/** Write `count` skills under `root`, named skill-00000..; returns their names. */
export function generateSkills(root: string, count: number): string[] {
  return generateCorpus(root, count).names;
}

/** Write `count` skills under `root`, named skill-00000..; returns their names and what was written. */
export function generateCorpus(root: string, count: number): Corpus {
  mkdirSync(root, { recursive: true });
  const all = samples();
  const names: string[] = [];
  const made = { folders: 0, files: 0, bytes: 0 };
  for (let i = 0; i < count; i++) {
    const name = `skill-${String(i).padStart(5, "0")}`;
    const sample = all[i % all.length] as Sample;
    const text = sample.text.replace(/^(---\r?\n[\s\S]*?)^name:.*$/m, `$1name: ${name}`);
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "SKILL.md"), text);
    made.folders += 1 + foldersOf(sample.files);
    made.files += 1 + sample.files.length;
    made.bytes += Buffer.byteLength(text);
    for (const [path, bytes] of sample.files) {
      const file = join(dir, path);
      mkdirSync(dirname(file), { recursive: true });
      const fill = BINARY.has(extname(path).toLowerCase()) ? BYTES : TEXT;
      const content = fill.subarray(0, Math.min(bytes, fill.length));
      writeFileSync(file, content);
      made.bytes += content.length;
    }
    names.push(name);
  }
  return { names, ...made };
}
