import { SERVER_PATH } from "../../util/shown-arg.ts";
import type { ServerPaths } from "../server-paths.ts";
import { CUT, cutInSkill, nextCut } from "./cut-paths.ts";
import { endsPath, type Hit, type Matcher, matcher, NAME_CHAR, nextIndex, pathStart } from "./path-text.ts";
import { inSkill, skillFolderEnd } from "./skill-file-uri.ts";

/**
 * `value` with every path of `paths.folders` in it replaced, in one pass from left to right: at each step
 * the earliest place a folder is written (the longest folder there), and the path it starts, which ends
 * where running text would end it or where the next folder is written (a second path glued on:
 * `out.txt#/home/…`). Each folder's next place is looked for again only once passed: the pass costs the
 * text's length times the number of folders. In a skill's own text (`skillText`) a path into a skill becomes
 * its URI and any other is its author's, kept.
 */
export function hidePaths(value: string, paths: ServerPaths, skillText: boolean): string {
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
  const cutFrom = (from: number) => {
    if (cut === null || (cut !== undefined && cut.at < from)) cut = nextCut(value, from, paths, m, skillText);
    return cut;
  };
  // A text of many paths and one cut at its end is read once for it, not once a path.
  const next = nextIndex(value);
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
    let stop = skillEnd;
    while (stop < bound && !endsPath(value, stop, m)) stop++;
    const name = paths.folders[best.index]?.[1] ?? "";
    // A folder that ends a longer path (`/backup/home/ana/x`) is no skill's: only its names are hidden.
    const uri = best.inner ? undefined : inSkill(value.slice(best.at, stop), best.end - best.at, paths, m);
    // A skill's text keeps its author's paths, but not one cut short where it may go on into a skill's folder.
    const cutInto =
      skillText && uri === undefined && !best.inner
        ? cutInSkill(value, best.at, next(CUT, best.at), bound, paths, m)
        : undefined;
    if (cutInto !== undefined) stop = cutInto;
    if (uri !== undefined) out += value.slice(pos, lead) + uri;
    else if (skillText && cutInto === undefined) out += value.slice(pos, stop);
    else if (best.inner) out += value.slice(pos, best.at + 1) + name + value.slice(best.end, stop);
    else out += value.slice(pos, lead) + name + value.slice(best.end, stop);
    pos = stop;
  }
  return out + value.slice(pos);
}

/**
 * Where folder `index` is next written in `text` from `from` on, as a whole path: it starts a path (a LEAD
 * prefix before it, or no longer path it ends: continuesPath; a folder of `paths.anywhere` may end one)
 * and ends one of its folders (no name goes on past it: `/home/ana` is not in `/home/anabel/x`, nor
 * `/home/anabel` in `/backup/home/anabel`), a `.` going on only into a name (`…/pdf.bak`, while `…/pdf.`
 * ends a sentence).
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
