import { basename, dirname } from "node:path";
import { isEnabled } from "../../catalog/filters.ts";
import { linkTarget } from "../../skills/markdown-links.ts";
import type { Skill } from "../../skills/skill.ts";
import { shownArg } from "../../util/shown-arg.ts";
import type { ToolContext } from "../definition.ts";
import { skillFiles } from "./skill-file-list.ts";
import { skillPlace } from "./skill-place.ts";

/** Most files a miss suggests. */
const SUGGESTIONS_MAX = 3;

/** Longest path a miss looks for among the skill's files (characters): a longer one names none of them. */
const MAX_ASKED_CHARS = 1024;

/** What a missed path may have meant: a sentence to add to the answer, and the paths it suggests. */
export interface MissedFileHint {
  sentence: string;
  suggestions: string[];
}

/**
 * For a path that names no file of `skill`: the file of another skill it names through that skill's
 * folder beside this one's, as skills of one collection refer to each other
 * (`../requesting-code-review/code-reviewer.md`, `skills/scientific-schematics/scripts/generate.py` from a
 * project holding them), with the call that reads it; else this skill's files it may mean: as a link in one
 * of its own files gives it (`next.md` written in `references/guide.md`, `../scripts/run.py`), under a path
 * to its folder (`.claude/skills/<name>/scripts/run.py`), or in another case or Unicode form. Undefined when
 * there is none. Only enabled skills are named.
 */
export function missedFileHint(skill: Skill, asked: string, ctx: ToolContext): MissedFileHint | undefined {
  if (asked.length > MAX_ASKED_CHARS) return undefined;
  // The path as written from the skill's folder: how many folders it climbs out of it, and where it goes then.
  let climbs = 0;
  const rest: string[] = [];
  for (const segment of linkTarget(asked).split(/[\\/]+/)) {
    if (segment === "..") {
      if (rest.pop() === undefined) climbs++;
    } else if (segment !== "" && segment !== ".") rest.push(segment);
  }
  if (rest.length === 0) return undefined;
  if (climbs <= 1) {
    const beside = siblings(skill, ctx);
    const at = rest.findIndex((segment, i) => i < rest.length - 1 && beside.has(segment));
    const other = beside.get(rest[at] ?? "");
    const file = rest.slice(at + 1).join("/");
    // Named only when it is served and has that file: a refusal is not logged for a skill nobody asked for.
    if (
      other &&
      isEnabled(other, ctx.deps.filter) &&
      !ctx.deps.frozen?.refusal(other, ctx.deps.store.catalog) &&
      (file === "SKILL.md" || skillFiles(other, ctx).files.some((f) => f.path === file))
    )
      return otherSkillFile(other, file, ctx);
  }
  const wanted = rest.join("/").normalize("NFC").toLowerCase();
  const paths = skillFiles(skill, ctx).files.map((f) => f.path);
  const matches = paths.filter((path) => {
    const p = path.normalize("NFC").toLowerCase();
    return p === wanted || p.endsWith(`/${wanted}`) || wanted.endsWith(`/${p}`);
  });
  if (matches.length === 0) return undefined;
  const suggestions = matches.slice(0, SUGGESTIONS_MAX);
  return { sentence: ` Did you mean ${suggestions.map((p) => `'${p}'`).join(", ")}?`, suggestions };
}

/** The sentence naming `file` of `other` and the call that reads it. */
function otherSkillFile(other: Skill, file: string, ctx: ToolContext): MissedFileHint {
  const place = skillPlace(other, ctx);
  const shown = shownArg(file);
  // A path cut or escaped to be shown is no file's: its URI is given only when shown whole.
  const where = place.remote && shown === file ? `, or its URI ${place.uri(file)}` : "";
  return {
    sentence: ` It is a file of skill '${place.name}': read it with read_skill_file (skill_name "${place.name}", file_path "${shown}")${where}.`,
    suggestions: [],
  };
}

/** The Agent Skills whose folders lie beside `skill`'s own, by folder name. */
function siblings(skill: Skill, ctx: ToolContext): Map<string, Skill> {
  const parent = dirname(skill.dir);
  const beside = new Map<string, Skill>();
  for (const s of ctx.deps.store.catalog.skills)
    if (s !== skill && s.kind === "agent-skill" && dirname(s.dir) === parent) beside.set(basename(s.dir), s);
  return beside;
}
