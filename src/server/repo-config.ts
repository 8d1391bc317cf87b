import type { Config } from "../config/schema.ts";

/**
 * The configuration read again (cli.ts): what a repository's config.yaml now sets, with the load's
 * warnings. With trust.allowed_signers, only the copies `verifiedCopy` passes count.
 */
export type ConfigReload = (
  verifiedCopy?: (copy: string) => boolean,
) => Promise<{ config: Config; warnings: readonly string[] }>;

/**
 * The sections of a repository's config.yaml a running server takes up after a sync: those read when
 * they are used (a call, an event). `refresh` and `git` drive the sync itself, which is already running
 * with them: they apply from the next start (source-config.ts lists what a repository may set).
 */
export const LIVE_SECTIONS = ["matching", "scripts", "assets", "analytics", "content"] as const;

type Section = (typeof LIVE_SECTIONS)[number];

/**
 * `current` with LIVE_SECTIONS taken from `next`, a configuration read again after a sync: a running
 * server changes nothing else (its folders, its transport, its tools profile stay as started). The
 * sections that differ are named; none: nothing to apply. Pure.
 */
export function repositorySections(current: Config, next: Config): { config: Config; changed: Section[] } {
  const changed: Section[] = [];
  const config: Record<string, unknown> = { ...current };
  for (const key of LIVE_SECTIONS) {
    if (JSON.stringify(current[key]) === JSON.stringify(next[key])) continue;
    config[key] = next[key];
    changed.push(key);
  }
  return { config: config as Config, changed };
}
