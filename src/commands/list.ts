import { basename, dirname } from "node:path";
import type { Catalog } from "../catalog/catalog.ts";
import { isEnabled } from "../catalog/filters.ts";
import { SCAN_LIMIT_CODES } from "../sources/walk.ts";
import { oneLine, truncate } from "../tools/support/skill-catalog.ts";
import { alignColumns } from "../util/columns.ts";
import { formatDiagnostic } from "../util/diagnostic.ts";
import { folderProblem } from "../util/folder-check.ts";
import { plural } from "../util/plural.ts";
import { program } from "../util/program-name.ts";
import { type CommandRun, scannedHub } from "./context.ts";
import { parentProjectNote } from "./parent-project.ts";
import { unreadSkillsNote } from "./unread-skills.ts";

/**
 * `skillhub list [--json] [--all]`: served skills with source and description (JSON: folder and location too);
 * --all adds shadowed ones. Exit 1 when no skill is found and some SKILL.md could not be read (every skill
 * broken), as doctor does; an empty folder is no failure.
 */
export const runList: CommandRun = async (ctx) => {
  const hub = await scannedHub(ctx);
  const catalog = hub.catalog;
  const skills = catalog.skills.map((s) => ({
    name: s.name,
    description: s.description,
    location: s.location,
    source: s.source,
    path: s.dir,
    enabled: isEnabled(s, hub.filter),
    // Frozen mode hides what the lock does not vouch for: told apart from a name or category filter.
    ...(hub.filter.locked && !hub.filter.locked(s) ? { not_locked: true } : {}),
    ...(s.category ? { category: s.category } : {}),
  }));
  const shadowed = catalog.shadowed.map(({ skill, by }) => ({
    name: skill.name,
    qualified: skill.id,
    path: skill.dir,
    shadowed_by: by.dir,
  }));
  const errors = catalog.diagnostics.filter((d) => d.severity === "error").length;
  const warnings = catalog.diagnostics.filter((d) => d.severity === "warning").length;
  const limits = catalog.diagnostics
    .filter((d) => SCAN_LIMIT_CODES.has(d.code))
    .map((d) => ({ code: d.code, file: d.file, message: d.message }));
  const allBroken = skills.length === 0 && errors > 0;
  if (ctx.args.options.json) {
    ctx.out(
      `${JSON.stringify({ skills, ...(ctx.args.options.all ? { shadowed } : {}), diagnostics: { errors, warnings, ...(limits.length > 0 ? { limits } : {}) } }, null, 2)}\n`,
    );
    return allBroken ? 1 : 0;
  }
  const parent = parentProjectNote(hub.projectRoot, ctx.homeDir);
  if (skills.length === 0) {
    // Every skill found is broken: a failure, said where failures go; stdout lists no skill.
    const say = allBroken ? ctx.err : ctx.out;
    say(noSkillsNote(catalog, "list", ctx.cwd));
    if (parent) say(`note: ${parent}\n`);
    return allBroken ? 1 : 0;
  }
  const rows = skills.map((s) => {
    const flag = s.not_locked ? " [frozen: the lock does not vouch for it]" : s.enabled ? "" : " [disabled]";
    return [s.name, s.source, `${truncate(oneLine(s.description), 80)}${flag}`];
  });
  if (ctx.args.options.all) for (const s of shadowed) rows.push([s.qualified, `shadowed by ${s.shadowed_by}`]);
  // A name longer than 40 characters pushes its own line rather than every other one.
  for (const line of alignColumns(rows, 40)) ctx.out(`${line}\n`);
  const notes = [`${skills.length} skill${skills.length === 1 ? "" : "s"}`];
  if (shadowed.length > 0)
    notes.push(`${shadowed.length} shadowed${ctx.args.options.all ? "" : " (--all shows them)"}`);
  const unlocked = skills.filter((s) => s.not_locked).length;
  if (unlocked > 0) notes.push(frozenNote(unlocked));
  if (errors + warnings > 0)
    notes.push(
      `${errors} skipped with errors, ${warnings} warning${warnings === 1 ? "" : "s"} (\`${program()} doctor\` with the same options names them)`,
    );
  ctx.out(`\n${notes.join(", ")}\n`);
  // A limit that stopped the scan hides skills: say so here too, not only in doctor.
  for (const d of catalog.diagnostics) if (SCAN_LIMIT_CODES.has(d.code)) ctx.out(`warning: ${formatDiagnostic(d)}\n`);
  const unread = unreadSkillsNote(ctx.cwd, catalog);
  if (unread) ctx.out(`note: ${unread}\n`);
  if (parent) ctx.out(`note: ${parent}\n`);
  return 0;
};

/**
 * What `list` and `search` say when no skill is served at all. A folder whose only SKILL.md is broken is
 * not "empty": each problem is named, with its fix.
 */
export function noSkillsNote(catalog: Catalog, command: "list" | "search", cwd: string): string {
  const errors = catalog.diagnostics.filter((d) => d.severity === "error");
  if (errors.length === 0) {
    const unread = unreadSkillsNote(cwd, catalog);
    const hint = unread ? ` ${unread}` : "";
    const then = hint || ` Run \`${program()} doctor\` with the same options to see every folder searched.`;
    // A folder the user named is the one they expected skills in: named back first, as doctor needs it too.
    const named = catalog.sources.filter((s) => s.location === "explicit").map((s) => s.dir);
    const problems = named.map((dir) => [dir, folderProblem(dir)?.kind] as const);
    if (problems.some(([, kind]) => kind !== undefined))
      return `No skills found: ${problems.map(([dir, kind]) => namedFolderState(dir, kind)).join("; ")}.${then}\n`;
    if (named.length > 0)
      return `No skills found in ${named.join(", ")} (a skill is a folder holding a SKILL.md) nor in the usual folders.${then}\n`;
    if (unread) return `No skills found.${hint}\n`;
    return `No skills found. Run \`${program()} doctor\` to see which folders were searched.\n`;
  }
  return [
    `No skills served: ${errors.length} SKILL.md file${errors.length === 1 ? "" : "s"} could not be read as a skill:`,
    ...errors.map((d) => `  ${formatDiagnostic(d)}`),
    `Fix them (${program()} validate DIR explains each rule), then run ${program()} ${command} again.`,
    "",
  ].join("\n");
}

/**
 * Why a folder given with --skills-dir served no skills: it holds none, it does not exist, or it is a file
 * (a SKILL.md, most often, given for the folder that holds the skill folders: that folder is named).
 */
function namedFolderState(dir: string, kind: "missing" | "file" | undefined): string {
  if (kind === undefined) return `${dir} holds no skills (a skill is a folder holding a SKILL.md)`;
  if (kind === "missing") return `${dir} does not exist`;
  const hint =
    basename(dir).toLowerCase() === "skill.md"
      ? `--skills-dir ${dirname(dirname(dir))}`
      : "a skill is a folder holding a SKILL.md";
  return `${dir} is a file: give the folder that holds skill folders (${hint})`;
}

/**
 * How many skills a frozen server refuses, as the lock does not vouch for them, and where to see why: a
 * part of list's summary, or (`sentence`) a sentence of its own.
 */
export function frozenNote(count: number, sentence = false): string {
  const one = count === 1;
  const what = sentence ? `${plural(count, "skill")} ${one ? "is" : "are"}` : `${count}`;
  return `${what} not served in frozen mode, as skillhub.lock does not vouch for ${one ? "it" : "them"} (\`${program()} verify\` says why)${sentence ? "." : ""}`;
}
