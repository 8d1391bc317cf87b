import type { LinkPolicy } from "./markdown-inline.ts";

/** Where a page's relative links lead: files of the skill `skillId`, relative to `dir` in it ("" = its folder). */
export interface PageLinks {
  skillId: string;
  /** Folder of the rendered file inside the skill, ending in "/" ("" for SKILL.md). */
  dir: string;
}

/** The page's href for a file of a skill (hash routing; the page fetches it through /ui/api/file). */
export function fileHref(id: string, path: string): string {
  return `#/skill/${encodeURIComponent(id)}/file/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** The renderer's link policy for `links` (plain data, so that a worker can be sent it); none: text only. */
export function pageLinkPolicy(links: PageLinks | undefined): LinkPolicy {
  return links ? { file: (path) => fileHref(links.skillId, links.dir + path) } : {};
}
