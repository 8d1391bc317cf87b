import { realpathSync } from "node:fs";
import { basename, dirname, join, posix } from "node:path";
import { inVersionControl } from "../sources/version-control.ts";
import { type Diagnostic, diagnostic } from "../util/diagnostic.ts";
import { isInside } from "../util/safe-path.ts";
import { statOf } from "../util/stat.ts";
import type { ParsedSkill } from "./skill.ts";
import type { TreeParse } from "./tree-node.ts";
import { isTreeMarker, resolveParentPath, skillPathOf } from "./tree-paths.ts";

/** One loose `.md` file of a source (outside Agent-Skill folders), already parsed. */
export interface TreeFile {
  /** Absolute path. */
  file: string;
  /** Path under the source root, "/" separators. */
  rel: string;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  parse: TreeParse;
}

/** The file-system questions assembly asks; injectable for tests. */
export interface TreeProbe {
  isDirectory(path: string): boolean;
  isFile(path: string): boolean;
  /** Real path, or undefined when the path does not exist. */
  realpath(path: string): string | undefined;
}

export const fsProbe: TreeProbe = {
  isDirectory: (path) => statOf(path)?.isDirectory() ?? false,
  isFile: (path) => statOf(path)?.isFile() ?? false,
  realpath: (path) => {
    try {
      return realpathSync(path);
    } catch {
      return undefined;
    }
  },
};

/** Documentation files that are never warned about when they are not tree nodes. */
const DOC_NAMES = new Set([
  "readme",
  "changelog",
  "changes",
  "history",
  "license",
  "licence",
  "notice",
  "authors",
  "contributing",
  "code_of_conduct",
  "security",
  "claude",
  "agents",
  "gemini",
]);

export interface AssembledTree {
  nodes: ParsedSkill[];
  diagnostics: Diagnostic[];
}

/**
 * Which loose `.md` files of one source are tree nodes, their
 * skill paths, parents (within this source, skipping missing intermediates),
 * resource folders, and warnings for declared files that are missing.
 *
 * A file is a node when its frontmatter has `keywords` (and a description).
 * A file without them is skipped with a warning only *inside a tree*: in a
 * folder holding `_root.md`, `_index.md` or a node, or below one; README-like
 * files and files under dot-folders are skipped silently, so an ordinary
 * Agent-Skills collection's README makes no noise. Files inside a node's
 * resource folder (`auth.md` → `auth/`) are that node's files, not nodes.
 */
export function assembleTree(root: string, files: readonly TreeFile[], probe: TreeProbe = fsProbe): AssembledTree {
  const diagnostics: Diagnostic[] = [];
  const resourceFolders = new Set(files.filter((f) => f.parse.kind !== "other").map((f) => skillPathOf(f.rel)));

  const kept: TreeFile[] = [];
  for (const f of files) {
    const folder = resourceFolderOf(f.rel, resourceFolders);
    if (folder === undefined) kept.push(f);
    else if (f.parse.kind !== "other") {
      diagnostics.push(
        diagnostic(
          "in-resource-folder",
          "warning",
          f.file,
          `inside the resource folder of ${folder}.md, so it is one of that node's files, not a tree node.`,
        ),
      );
    }
  }

  const treeDirs = new Set<string>();
  for (const f of kept)
    if (f.parse.kind !== "other" || isTreeMarker(basename(f.rel))) treeDirs.add(posix.dirname(f.rel));
  const inTree = (rel: string) => {
    for (let dir = posix.dirname(rel); ; dir = posix.dirname(dir)) {
      if (treeDirs.has(dir)) return true;
      if (dir === "." || dir === "/" || dir === "") return false;
    }
  };

  const nodes = new Map<string, TreeFile & { parse: Extract<TreeParse, { kind: "node" }> }>();
  for (const f of kept) {
    if (f.parse.kind === "node") {
      nodes.set(skillPathOf(f.rel), f as TreeFile & { parse: Extract<TreeParse, { kind: "node" }> });
      diagnostics.push(...f.parse.diagnostics);
    } else if (f.parse.kind === "invalid") diagnostics.push(...f.parse.diagnostics);
    else if (isTreeMarker(basename(f.rel)) || (inTree(f.rel) && !silent(f.rel)))
      diagnostics.push(...f.parse.diagnostics);
  }

  const out: ParsedSkill[] = [];
  const realRoot = probe.realpath(root);
  for (const [path, f] of [...nodes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const n = f.parse.node;
    const { parent } = resolveParentPath(path, (p) => nodes.has(p));
    const dir = join(root, path);
    const resourceDir = probe.isDirectory(dir) ? dir : undefined;
    const refused = resourceDir === undefined ? undefined : refusedFolder(realRoot, resourceDir, f.file, probe);
    if (refused !== undefined) diagnostics.push(refused);
    else {
      for (const d of n.assets) diagnostics.push(...checkDeclared(f.file, path, "asset", d.file, resourceDir, probe));
      for (const d of n.scripts) diagnostics.push(...checkDeclared(f.file, path, "script", d.file, resourceDir, probe));
    }
    out.push({
      kind: "tree-node",
      name: path,
      key: path.toLowerCase(),
      description: n.description,
      ...(n.category === undefined ? {} : { category: n.category }),
      tags: n.tags,
      keywords: n.keywords,
      alwaysApply: false,
      frontmatterJson: n.frontmatterJson,
      bodyLines: n.bodyLines,
      dir,
      file: f.file,
      hash: n.hash,
      size: f.size,
      mtimeMs: f.mtimeMs,
      ctimeMs: f.ctimeMs,
      ino: f.ino,
      tree: {
        path,
        rel: f.rel,
        ...(parent === undefined ? {} : { parent }),
        inherit: n.inherit,
        priority: n.priority,
        assets: n.assets,
        scripts: n.scripts,
        ...(resourceDir === undefined ? {} : { resourceDir }),
      },
    });
  }
  return { nodes: out, diagnostics };
}

/**
 * The resource folder `rel` lies in, if any: the outermost of its folders that is one of `folders` (the skill
 * paths of the files declaring keywords; the outer folder holds the inner one's node too). One look-up per
 * folder of the path, so assembly stays linear in the number of files.
 */
export function resourceFolderOf(rel: string, folders: ReadonlySet<string>): string | undefined {
  for (let end = rel.indexOf("/"); end >= 0; end = rel.indexOf("/", end + 1)) {
    const folder = rel.slice(0, end);
    if (folders.has(folder)) return folder;
  }
  return undefined;
}

/** README.md, LICENSE.md, … and anything under a dot-folder (.github/) are documentation, not nodes. */
function silent(rel: string): boolean {
  const name = basename(rel).replace(/\.md$/i, "").toLowerCase();
  return (
    DOC_NAMES.has(name) ||
    rel
      .split("/")
      .slice(0, -1)
      .some((s) => s.startsWith("."))
  );
}

/**
 * Why none of a node's (`file`) files are served, named once here (skills/skill-read.ts realFolder refuses
 * them at every read): its resource folder leads, links followed, out of the folder its file is in, or is
 * version-control metadata (`.git.md` beside `.git/`, or a node inside a `.git`). Undefined when it serves them.
 */
function refusedFolder(
  realRoot: string | undefined,
  resourceDir: string,
  file: string,
  probe: TreeProbe,
): Diagnostic | undefined {
  const own = probe.realpath(dirname(file));
  const real = probe.realpath(resourceDir);
  if (own === undefined || real === undefined) return undefined;
  const name = basename(file);
  const folder = `${name.replace(/\.md$/i, "")}/`;
  if (!isInside(own, real))
    return diagnostic(
      "unsafe-path",
      "warning",
      file,
      `its resource folder ${folder} is a link to a folder outside the one ${name} is in; none of its assets or scripts are served.`,
    );
  if (realRoot !== undefined && inVersionControl(realRoot, real))
    return diagnostic(
      "unsafe-path",
      "warning",
      file,
      `its resource folder ${folder} is version-control metadata (.git, or a folder in one); none of its assets or scripts are served.`,
    );
  return undefined;
}

/** A declared asset or script must exist, as a file, inside the node's real resource folder. */
function checkDeclared(
  file: string,
  path: string,
  what: string,
  rel: string,
  resourceDir: string | undefined,
  probe: TreeProbe,
): Diagnostic[] {
  const folder = `${path}/`;
  if (resourceDir === undefined) {
    return [
      diagnostic(
        "missing-file",
        "warning",
        file,
        `declares ${what} '${rel}' but the resource folder ${folder} does not exist; served without it.`,
      ),
    ];
  }
  const target = join(resourceDir, rel);
  if (!probe.isFile(target))
    return [
      diagnostic(
        "missing-file",
        "warning",
        file,
        `declares ${what} '${rel}' but ${folder}${rel} does not exist; served without it.`,
      ),
    ];
  const baseReal = probe.realpath(resourceDir);
  const real = probe.realpath(target);
  // Security: a symlinked asset pointing outside the resource folder is never served; say so at scan time.
  if (!baseReal || !real || !isInside(baseReal, real)) {
    return [
      diagnostic(
        "unsafe-path",
        "warning",
        file,
        `${what} '${rel}' resolves outside ${folder} (symlink); it will not be served.`,
      ),
    ];
  }
  return [];
}
