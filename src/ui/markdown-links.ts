import type { LinkPolicy } from "./markdown-inline.ts";

/** Where a page's relative links lead: files of the skill `skillId`, relative to `dir` in it ("" = its folder). */
export interface PageLinks {
  skillId: string;
  /** Folder of the rendered file inside the skill, ending in "/" ("" for SKILL.md). */
  dir: string;
  /**
   * The skill's files (paths inside its folder, as the page lists them): a link to any other path (a file
   * that does not exist, a `..` into another skill) is shown as text. Absent: every path inside the folder.
   */
  files?: readonly string[];
}

/** The page's href for a file of a skill (hash routing; the page fetches it through /ui/api/file). */
export function fileHref(id: string, path: string): string {
  return `#/skill/${encodeURIComponent(id)}/file/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** The page's href for a skill. */
export function skillHref(id: string): string {
  return `#/skill/${encodeURIComponent(id)}`;
}

/** The renderer's link policy for `links` (plain data, so that a worker can be sent it); none: text only. */
export function pageLinkPolicy(links: PageLinks | undefined): LinkPolicy {
  if (!links) return {};
  const files = links.files && new Set(links.files);
  return {
    file: (path) => {
      const target = insideSkill(links.dir + path);
      if (target === undefined) return undefined;
      // SKILL.md is the skill's page.
      if (target === "SKILL.md") return skillHref(links.skillId);
      return !files || files.has(target) ? fileHref(links.skillId, target) : undefined;
    },
  };
}

/** `path` with its `.` and `..` steps taken, or undefined when it leaves the skill's folder or names the folder. */
export function insideSkill(path: string): string | undefined {
  const kept: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part !== "..") kept.push(part);
    else if (kept.pop() === undefined) return undefined;
  }
  return kept.length > 0 ? kept.join("/") : undefined;
}
