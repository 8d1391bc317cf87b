import type { Catalog } from "../catalog/catalog.ts";
import { formatDiagnostic } from "../skills/diagnostic.ts";
import { SCAN_LIMIT_CODES } from "../sources/walk.ts";
import type { Logger } from "../util/logger.ts";

/**
 * Seed 004: a skipped skill is logged to stderr (once per new problem);
 * warnings are summed up in one line and listed at DEBUG and by `doctor`.
 */
export function logNewDiagnostics(logger: Logger, previous: Catalog, next: Catalog): void {
  const seen = new Set(previous.diagnostics.map((d) => `${d.code}\u0000${d.file}\u0000${d.message}`));
  let warnings = 0;
  for (const d of next.diagnostics) {
    if (seen.has(`${d.code}\u0000${d.file}\u0000${d.message}`)) continue;
    if (d.code === "unreadable") logger.error(formatDiagnostic(d));
    else if (d.severity === "error" || SCAN_LIMIT_CODES.has(d.code)) logger.warn(formatDiagnostic(d));
    else {
      if (d.severity === "warning") warnings++;
      logger.debug(formatDiagnostic(d));
    }
  }
  if (previous.generation !== 0 && warnings > 0) logSummary(logger, next, warnings);
}

/** After the first scan: what is served, and the explicit folders that do not exist (a typo, most often). */
export function logFirstCatalog(logger: Logger, catalog: Catalog): void {
  logSummary(logger, catalog, catalog.diagnostics.filter((d) => d.severity === "warning").length);
  for (const source of catalog.sources) {
    if (source.location === "explicit" && !source.exists)
      logger.warn(`skills folder ${source.dir} (--skills-dir / SKILLS_DIR) does not exist.`);
  }
  if (catalog.skills.length === 0) logger.warn("no skills found; `skillhub doctor` shows which folders were searched.");
}

function logSummary(logger: Logger, catalog: Catalog, warnings: number): void {
  const skipped = catalog.errorCount();
  const folders = catalog.sources.filter((s) => s.exists).length;
  logger.info(
    `${catalog.skills.length} skill${catalog.skills.length === 1 ? "" : "s"} served from ${folders} folder${folders === 1 ? "" : "s"}; ${skipped} skipped, ${warnings} warning${warnings === 1 ? "" : "s"}${skipped + warnings > 0 ? " (`skillhub doctor` lists them)" : ""}.`,
  );
}
