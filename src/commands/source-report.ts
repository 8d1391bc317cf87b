import { relative, sep } from "node:path";
import type { Catalog } from "../catalog/catalog.ts";
import { alignColumns } from "../util/columns.ts";
import { formatDiagnostic } from "../util/diagnostic.ts";

/** One line of a description: its first sentence or line, at most `width` characters. */
export function oneLine(text: string, width = 96): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= width ? line : `${line.slice(0, width - 1).trimEnd()}…`;
}

function inside(dir: string, file: string): boolean {
  const rel = relative(dir, file);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}

/**
 * What a source brings, as `doctor` reports it: the skills it serves (name and one line of
 * description), the ones hidden by an earlier source or a duplicate name, the ones of other sources
 * it hides, and its skills that are not served with why.
 */
export function sourceReport(catalog: Catalog, label: string, dir: string): string[] {
  const served = catalog.skills.filter((s) => s.source === label).sort((a, b) => a.name.localeCompare(b.name));
  const hidden = catalog.shadowed.filter(({ skill }) => skill.source === label).length;
  const lines = [
    served.length + hidden === 0
      ? `${label}: no skills found in ${dir}.`
      : `${label}: ${served.length} skill${served.length === 1 ? "" : "s"} available${hidden ? `, ${hidden} shadowed` : ""} (${dir}):`,
  ];
  const rows = served.map((skill) => [skill.name, oneLine(skill.description)]);
  for (const line of alignColumns(rows, 32)) lines.push(`  ${line}`);
  for (const { skill, by } of catalog.shadowed) {
    if (skill.source === label)
      lines.push(`  shadowed: ${skill.name} is hidden by ${by.dir} (source ${by.source}); load it as '${skill.id}'.`);
    else if (by.source === label)
      lines.push(`  shadows: ${skill.name} of source ${skill.source} (${skill.dir}); load that one as '${skill.id}'.`);
  }
  for (const d of catalog.diagnostics)
    if (d.severity === "error" && d.code !== "shadowed" && inside(dir, d.file)) lines.push(`  ${formatDiagnostic(d)}`);
  return lines;
}
