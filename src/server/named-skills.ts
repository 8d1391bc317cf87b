import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { isEnabled } from "../catalog/filters.ts";
import type { Hub } from "./hub.ts";
import type { NamedSkill } from "./instructions.ts";

/** Most skills kept: more than the instructions ever name. */
const KEPT = 64;

/**
 * The skills the last run's instructions could name, kept beside the search
 * index (one file per set of source folders). A stdio client sends `initialize`
 * right after spawning the server, before the first scan of a large catalog
 * ends: answering at once with these names keeps start-up fast and the
 * instructions useful; a changed catalog is announced by list_changed as usual.
 */
export function namedSkillsFile(hub: Hub): string {
  const cacheDir = hub.config.cache_path ?? join(hub.config.home, "index");
  const dirs = hub.sources().map((s) => s.dir);
  return join(cacheDir, `named-skills-${Bun.hash(dirs.join("\u0000")).toString(16)}.json`);
}

/** The kept names, or undefined when there are none (first run, unreadable or malformed file). */
export function loadNamedSkills(file: string): NamedSkill[] | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
    if (!Array.isArray(parsed)) return undefined;
    const skills = parsed.filter(
      (s): s is NamedSkill =>
        typeof s?.name === "string" && typeof s?.description === "string" && typeof s?.alwaysApply === "boolean",
    );
    return skills.length > 0 ? skills.map((s) => ({ ...s, id: s.name, kind: "agent-skill" as const })) : undefined;
  } catch {
    return undefined;
  }
}

/** Keep the current catalog's enabled skills for the next start (atomic write; failures only logged). */
export function saveNamedSkills(hub: Hub, file: string): void {
  const skills = hub.catalog.skills
    .filter((s) => isEnabled(s, hub.filter))
    .sort(
      (a, b) =>
        Number(b.alwaysApply) - Number(a.alwaysApply) || (hub.usage.get(b.id) ?? 0) - (hub.usage.get(a.id) ?? 0),
    )
    .slice(0, KEPT)
    .map((s) => ({ name: s.name, description: s.description, alwaysApply: s.alwaysApply, kind: s.kind }));
  try {
    mkdirSync(dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(skills));
    renameSync(temp, file);
  } catch (error) {
    hub.logger.debug(`named skills not kept (${file}): ${(error as Error).message}`);
  }
}
