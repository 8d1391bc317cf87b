import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { Catalog } from "../catalog/catalog.ts";
import { Scanner } from "../catalog/scanner.ts";
import { walkLimitsOf } from "../refresh/refresher.ts";
import { lintAgentSkill, lintLinks, lintTreeNode, type SkillFolderView, strictSeverity } from "../skills/lint.ts";
import type { Skill } from "../skills/skill.ts";
import { buildSourceList } from "../sources/source-list.ts";
import { SKILL_FILE } from "../sources/walk.ts";
import { readConfinedText } from "../util/confined-read.ts";
import type { Diagnostic } from "../util/diagnostic.ts";
import { isInside, realOr } from "../util/safe-path.ts";
import { statOf } from "../util/stat.ts";
import type { CommandRun } from "./context.ts";

export interface ValidateReport {
  dirs: string[];
  summary: {
    agent_skills: number;
    tree_nodes: number;
    errors: number;
    warnings: number;
    without_problems: number;
    files_with_errors: number;
    files_with_warnings: number;
    /** Diagnostics per code, sorted by code. */
    by_code: Record<string, number>;
  };
  /** Files with at least one diagnostic, sorted by path. */
  files: { file: string; diagnostics: { severity: "error" | "warning" | "info"; code: string; message: string }[] }[];
}

/**
 * `skillhub validate [DIR...] [--json]`: lint Agent Skills against the
 * specification and skill trees against their format, for CI of skill
 * repositories. Exit 1 when any error or when no skill is found, 0 otherwise; 2 for a missing folder.
 */
export const runValidate: CommandRun = async (ctx) => {
  const dirs: string[] = [];
  for (const arg of ctx.args.positionals.length > 0 ? ctx.args.positionals : ["."]) {
    const path = isAbsolute(arg) ? arg : resolve(ctx.cwd, arg);
    const stat = statOf(path);
    if (!stat) {
      ctx.err(`skillhub validate: no such folder: ${arg}\n`);
      return 2;
    }
    // A SKILL.md (or any file) names its folder.
    dirs.push(stat.isDirectory() ? path : dirname(path));
  }
  const sources = buildSourceList({
    dirs,
    onlyDirs: true,
    projectDir: null,
    homeDir: ctx.homeDir,
    hubHome: ctx.config.home,
  });
  const catalog = new Scanner().scan(sources, walkLimitsOf(ctx.config));
  const report = validateCatalog(catalog, dirs, (file) => shownPath(file, ctx.cwd));
  const json = Boolean(ctx.args.options.json);
  if (json) ctx.out(`${JSON.stringify(report, null, 2)}\n`);
  // A folder without a skill fails: in CI it is most often the wrong path, and passing would hide that.
  const empty = report.summary.agent_skills + report.summary.tree_nodes === 0;
  if (empty && report.files.length === 0) {
    const line = `no skills found in ${dirs.join(", ")} (no SKILL.md and no tree node); is this the right folder?`;
    if (json) ctx.err(`skillhub validate: ${line}\n`);
    else ctx.out(`Checked ${dirs.length} folder${dirs.length === 1 ? "" : "s"}: ${line}\n`);
    return 1;
  }
  if (!json) ctx.out(renderReport(report));
  if (empty) ctx.err(`skillhub validate: no skills found in ${dirs.join(", ")}; is this the right folder?\n`);
  return report.summary.errors > 0 || empty ? 1 : 0;
};

/** Strict diagnostics of a scanned catalog, grouped by file; each Agent Skill's Markdown is read for its links. */
export function validateCatalog(
  catalog: Catalog,
  dirs: string[],
  show: (file: string) => string = (f) => f,
): ValidateReport {
  const all: Skill[] = [...catalog.skills, ...catalog.shadowed.map((s) => s.skill)];
  const nodePaths = new Set(all.flatMap((s) => (s.kind === "tree-node" ? [`${s.source}:${s.tree.path}`] : [])));
  const diagnostics: Diagnostic[] = catalog.diagnostics.filter((d) => d.code !== "shadowed").map(strictSeverity);
  for (const skill of all) {
    if (skill.kind === "agent-skill")
      diagnostics.push(...lintAgentSkill(skill), ...lintLinks(skill, folderView(skill)));
    else diagnostics.push(...lintTreeNode(skill, (p) => nodePaths.has(`${skill.source}:${p}`)));
  }
  const byFile = new Map<string, Diagnostic[]>();
  for (const d of diagnostics) byFile.set(d.file, [...(byFile.get(d.file) ?? []), d]);
  const rank = { error: 0, warning: 1, info: 2 } as const;
  const files = [...byFile]
    .map(([file, list]) => ({
      file: show(file),
      diagnostics: list
        .sort((a, b) => rank[a.severity] - rank[b.severity] || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0))
        .map((d) => ({ severity: d.severity, code: d.code, message: d.message })),
    }))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const byCode: Record<string, number> = {};
  for (const d of [...diagnostics].sort((a, b) => (a.code < b.code ? -1 : 1)))
    byCode[d.code] = (byCode[d.code] ?? 0) + 1;
  const has = (severity: string) => files.filter((f) => f.diagnostics.some((d) => d.severity === severity)).length;
  return {
    dirs,
    summary: {
      agent_skills: all.filter((s) => s.kind === "agent-skill").length + notServed(diagnostics, all),
      tree_nodes: all.filter((s) => s.kind === "tree-node").length,
      // Skills whose own file has no error or warning: the summary line says how many passed, not only what failed.
      without_problems: all.filter((s) => !(byFile.get(s.file) ?? []).some((d) => d.severity !== "info")).length,
      errors: diagnostics.filter((d) => d.severity === "error").length,
      warnings: diagnostics.filter((d) => d.severity === "warning").length,
      files_with_errors: has("error"),
      files_with_warnings: has("warning"),
      by_code: byCode,
    },
    files,
  };
}

/**
 * An Agent Skill's folder as lintLinks reads it: links followed inside it, each file read by the confined
 * reader (a regular file, at most 1 MiB, never blocking on a FIFO).
 */
function folderView(skill: Skill): SkillFolderView {
  const real = realOr(skill.dir);
  return {
    find(path) {
      try {
        return isInside(real, realpathSync(join(real, path))) ? "present" : "outside";
      } catch {
        return "missing";
      }
    },
    text(path) {
      const read = readConfinedText({ root: real, rootIsReal: true, file: path });
      return read.ok ? read.text : undefined;
    },
  };
}

/** SKILL.md files (a misnamed `skill.md` too) that were found but could not be parsed into a skill. */
function notServed(diagnostics: Diagnostic[], parsed: Skill[]): number {
  const known = new Set(parsed.map((s) => s.file));
  const skillFile = SKILL_FILE.toLowerCase();
  return new Set(
    diagnostics
      .filter((d) => d.severity === "error" && basename(d.file).toLowerCase() === skillFile && !known.has(d.file))
      .map((d) => d.file),
  ).size;
}

/** Human output: one block per file, then a summary line. */
export function renderReport(report: ValidateReport): string {
  const lines: string[] = [];
  for (const f of report.files) {
    lines.push(f.file);
    for (const d of f.diagnostics) lines.push(`  ${d.severity.padEnd(7)} ${d.code.padEnd(22)} ${d.message}`);
    lines.push("");
  }
  const s = report.summary;
  const what = `${s.agent_skills} Agent Skill${s.agent_skills === 1 ? "" : "s"} and ${s.tree_nodes} tree node${s.tree_nodes === 1 ? "" : "s"} in ${report.dirs.length} folder${report.dirs.length === 1 ? "" : "s"}`;
  const found =
    s.errors + s.warnings === 0
      ? "no problems."
      : `${s.without_problems} without a problem, ${s.errors} error${s.errors === 1 ? "" : "s"} in ${s.files_with_errors} file${s.files_with_errors === 1 ? "" : "s"}, ${s.warnings} warning${s.warnings === 1 ? "" : "s"} in ${s.files_with_warnings} file${s.files_with_warnings === 1 ? "" : "s"}.`;
  lines.push(`Checked ${what}: ${found}`);
  const repeated = mostFrequent(s.by_code);
  if (repeated) lines.push(`Most frequent: ${repeated}.`);
  return `${lines.join("\n")}\n`;
}

/**
 * The codes found more than once, most frequent first (at most five): in a
 * large collection one habit (an extra frontmatter key, names with
 * underscores) repeats in hundreds of files, and the file blocks bury it.
 */
function mostFrequent(byCode: Record<string, number>): string | undefined {
  const repeated = Object.entries(byCode)
    .filter(([, n]) => n > 1)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .slice(0, 5);
  return repeated.length > 0 ? repeated.map(([code, n]) => `${code} (${n})`).join(", ") : undefined;
}

function shownPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? file : rel;
}
