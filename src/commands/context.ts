import type { ParsedArgs } from "../config/args.ts";
import type { Config } from "../config/schema.ts";
import { Hub, type HubOptions } from "../server/hub.ts";
import type { ConfigReload } from "../server/repo-config.ts";
import { UsageStore } from "../usage/usage-store.ts";
import type { Logger } from "../util/logger.ts";
import { fetchAdvice } from "./fetch-advice.ts";

/** Everything a command needs; output goes through `out`/`err` so tests can capture it. */
export interface CommandContext {
  args: ParsedArgs;
  config: Config;
  /** Non-fatal remarks from loading the configuration (unknown keys). */
  configWarnings: string[];
  env: Record<string, string | undefined>;
  homeDir: string;
  cwd: string;
  logger: Logger;
  out: (text: string) => void;
  err: (text: string) => void;
  /** The configuration read again, repositories' config.yaml included (servers, after a sync); unset without repositories. */
  reloadConfig?: ConfigReload;
}

/** A command returns its exit code; only cli.ts exits. */
export type CommandRun = (ctx: CommandContext) => Promise<number>;

/** The command's hub: its configuration, logger, environment and folders, plus `options`. */
export function hubFor(ctx: CommandContext, options: Partial<HubOptions> = {}): Hub {
  return new Hub({
    config: ctx.config,
    logger: ctx.logger,
    env: ctx.env,
    homeDir: ctx.homeDir,
    cwd: ctx.cwd,
    reloadConfig: ctx.reloadConfig,
    ...options,
  });
}

/**
 * A hub for one-shot commands: no watchers, no timer, no diagnostics on stderr; not scanned yet. Loads
 * (`skillhub show`) are counted in memory only: a person looking a skill up is not an agent using it.
 */
export function oneShotHub(ctx: CommandContext, options: Partial<HubOptions> = {}): Hub {
  const config = { ...ctx.config, sources: { ...ctx.config.sources, watch: false, rescan_seconds: 0 } };
  return hubFor(ctx, { config, announceDiagnostics: false, usage: new UsageStore(), ...options });
}

/**
 * A one-shot hub, scanned once. With trust.allowed_signers the repositories' copies are verified first
 * (git-trust.ts): one that is not verified is not served, by commands as by the server.
 */
export async function scannedHub(ctx: CommandContext, options: { sayUnsynced?: boolean } = {}): Promise<Hub> {
  const hub = oneShotHub(ctx);
  await hub.git?.verifyCopies();
  hub.scanNow();
  // A command does not sync (a server does, at start): a repository never synced here adds no skills, and
  // an empty list without a word would look like a broken setup. doctor and sources say it themselves.
  if (options.sayUnsynced !== false)
    for (const r of hub.git?.status() ?? [])
      if (!r.state)
        ctx.err(
          `skillhub: repository ${r.name} (${r.url}) is not synced yet, so its skills are left out; ${fetchAdvice(hub, r.name)}.\n`,
        );
  return hub;
}
