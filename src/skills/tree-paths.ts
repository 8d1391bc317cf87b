/**
 * Skill paths of tree nodes. Pure string functions.
 */

export const ROOT_PATH = "_root";
export const INDEX_SEGMENT = "_index";

/** "ui/react/auth.md" → "ui/react/auth"; Windows separators become "/". */
export function skillPathOf(rel: string): string {
  return rel.split("\\").join("/").replace(/\.md$/i, "");
}

/**
 * `deriveParentPath`: `_root` has none; `a/b/_index` → `a/_index`;
 * `a/_index` → `_root`; `a/b/leaf` → `a/b/_index`; a top-level leaf → `_root`.
 */
export function deriveParentPath(path: string): string | null {
  if (path === ROOT_PATH) return null;
  const segments = path.split("/");
  if (segments[segments.length - 1] === INDEX_SEGMENT) {
    return segments.length > 2 ? `${segments.slice(0, -2).join("/")}/${INDEX_SEGMENT}` : ROOT_PATH;
  }
  return segments.length > 1 ? `${segments.slice(0, -1).join("/")}/${INDEX_SEGMENT}` : ROOT_PATH;
}

/**
 * The nearest existing ancestor: derive the parent, and while it does not
 * exist derive again from it (missing intermediates are skipped).
 * `skipped` lists the derived parents that did not exist, nearest first.
 */
export function resolveParentPath(
  path: string,
  exists: (path: string) => boolean,
): { parent?: string; skipped: string[] } {
  const skipped: string[] = [];
  let candidate = deriveParentPath(path);
  while (candidate !== null && !exists(candidate)) {
    skipped.push(candidate);
    candidate = deriveParentPath(candidate);
  }
  return candidate === null ? { skipped } : { parent: candidate, skipped };
}

/**
 * A content section's header: `_root` → `GLOBAL RULES`; otherwise upper
 * case, "/" → " > ", `_index` segments removed, whitespace collapsed.
 */
export function sectionHeader(path: string): string {
  if (path === ROOT_PATH) return "GLOBAL RULES";
  const shown = path
    .split("/")
    .filter((s) => s.toLowerCase() !== INDEX_SEGMENT)
    .join(" > ")
    .toUpperCase()
    .replace(/\s+/g, " ")
    .trim();
  return shown === "" ? path.toUpperCase() : shown;
}

/** A node's short name in list_skills: "root", the folder of an `_index`, else the file name. */
export function nodeDisplayName(path: string): string {
  if (path === ROOT_PATH) return "root";
  const segments = path.split("/");
  const last = segments[segments.length - 1] ?? path;
  if (last === INDEX_SEGMENT && segments.length > 1) return segments[segments.length - 2] ?? last;
  return last;
}

/** Whether a file name marks a tree: `_root.md` or `_index.md`. */
export function isTreeMarker(fileName: string): boolean {
  return fileName === `${ROOT_PATH}.md` || fileName === `${INDEX_SEGMENT}.md`;
}
