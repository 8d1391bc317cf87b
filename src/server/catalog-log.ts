import type { Catalog, SourceStatus } from "../catalog/catalog.ts";
import { SCAN_LIMIT_CODES } from "../sources/walk.ts";
import { formatDiagnostic } from "../util/diagnostic.ts";
import type { Logger } from "../util/logger.ts";

/**
 * A skipped skill is logged to stderr (once per new problem);
 * warnings are summed up in one line and listed at DEBUG and by `doctor`.
 */
export function logNewDiagnostics(logger: Logger, previous: Catalog, next: Catalog): void {
  const seen = new Set(previous.diagnostics.map((d) => `${d.code}\u0000${d.file}\u0000${d.message}`));
  let warnings = 0;
  for (const d of next.diagnostics) {
    if (seen.has(`${d.code}\u0000${d.file}\u0000${d.message}`)) continue;
    if (d.code === "unreadable" || d.code === "project-file") logger.error(formatDiagnostic(d));
    else if (d.severity === "error" || SCAN_LIMIT_CODES.has(d.code)) logger.warn(formatDiagnostic(d));
    else {
      if (d.severity === "warning") warnings++;
      logger.debug(formatDiagnostic(d));
    }
  }
  if (previous.generation !== 0 && warnings > 0) logSummary(logger, next, warnings);
}

/** After the first scan: what is served, and where nothing was found. */
export function logFirstCatalog(logger: Logger, catalog: Catalog): void {
  logSummary(logger, catalog, catalog.diagnostics.filter((d) => d.severity === "warning").length);
  if (catalog.skills.length === 0) logger.warn(noSkillsFound(catalog.sources));
}

/** Where no skill was found: each folder when there are few (mcp-server reads one), else how many exist. */
export function noSkillsFound(sources: readonly SourceStatus[]): string {
  if (sources.length === 0) return "no skills found: no skills folder is configured.";
  if (sources.length <= 3)
    return `no skills found in ${sources.map((s) => `${s.dir}${s.exists ? "" : " (does not exist)"}`).join(", ")}.`;
  const existing = sources.filter((s) => s.exists).length;
  return existing === 0
    ? `no skills found: none of the ${sources.length} folders searched exists. Put skill folders in one of them (\`skillhub doctor\` lists them) or pass --skills-dir DIR.`
    : `no skills found in the ${existing} existing folder${existing === 1 ? "" : "s"} of the ${sources.length} searched; \`skillhub doctor\` lists them.`;
}

function logSummary(logger: Logger, catalog: Catalog, warnings: number): void {
  const skipped = catalog.errorCount();
  const folders = catalog.sources.filter((s) => s.exists).length;
  logger.info(
    `${catalog.skills.length} skill${catalog.skills.length === 1 ? "" : "s"} served from ${folders} folder${folders === 1 ? "" : "s"}; ${skipped} skipped, ${warnings} warning${warnings === 1 ? "" : "s"}${skipped + warnings > 0 ? " (`skillhub doctor` lists them)" : ""}.`,
  );
}
