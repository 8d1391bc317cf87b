import { resolve } from "node:path";
import type { ParsedArgs } from "../config/args.ts";
import type { Config } from "../config/schema.ts";
import { configSecrets } from "../exec/env.ts";
import { hideFromInitialEnviron } from "../exec/initial-environ.ts";
import { makeUndumpable } from "../exec/undumpable.ts";
import { Hub, type HubOptions } from "../server/hub.ts";
import type { ConfigReload } from "../server/repo-config.ts";
import type { Source } from "../sources/source-list.ts";
import { UsageStore } from "../usage/usage-store.ts";
import type { Diagnostic } from "../util/diagnostic.ts";
import { expandHome } from "../util/home-path.ts";
import type { Logger } from "../util/logger.ts";
import { secretVariables } from "../util/secret-env.ts";
import { fetchAdvice } from "./fetch-advice.ts";

/** Everything a command needs; output goes through `out`/`err` so tests can capture it. */
export interface CommandContext {
  args: ParsedArgs;
  config: Config;
  /** Non-fatal remarks from loading the configuration (unknown keys). */
  configWarnings: string[];
  /** Why the project's skillhub.yaml was left out (servers and doctor start without it): in every catalog. */
  projectError?: Diagnostic;
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

/**
 * Security: a server runs its clients' scripts and commands, so before any can start, the secrets leave the
 * process's environment block (/proc/<pid>/environ: exec/initial-environ.ts), and its memory and descriptors,
 * its stdout to the client among them, are closed to them (exec/undumpable.ts). `serve` and `ui` both.
 */
export async function closeToChildren(ctx: CommandContext): Promise<void> {
  await hideFromInitialEnviron(secretVariables(process.env, configSecrets(ctx.config)), ctx.logger);
  await makeUndumpable(ctx.logger);
}

/** The command's hub: its configuration, logger, environment and folders, plus `options`. */
export function hubFor(ctx: CommandContext, options: Partial<HubOptions> = {}): Hub {
  return new Hub({
    config: ctx.config,
    logger: ctx.logger,
    env: ctx.env,
    homeDir: ctx.homeDir,
    cwd: ctx.cwd,
    reloadConfig: ctx.reloadConfig,
    ...(ctx.projectError ? { notes: [ctx.projectError] } : {}),
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

/** The absolute folders of the command's --skills-dir flags (relative to its working folder, `~` the home). */
export function flagFolders(ctx: CommandContext): string[] {
  const given = ctx.args.flags["skills-dir"];
  if (!Array.isArray(given)) return [];
  return given.map((dir) => resolve(ctx.cwd, expandHome(String(dir), ctx.homeDir)));
}

/** The sources `ctx`'s configuration names, in precedence order, none of them read. */
export function sourcesOf(ctx: CommandContext): Source[] {
  const hub = oneShotHub(ctx);
  try {
    return hub.sources();
  } finally {
    hub.close();
  }
}

/**
 * A one-shot hub, scanned once. With trust.allowed_signers the repositories' copies are verified first
 * (git-trust.ts): one that is not verified is not served, by commands as by the server.
 */
export async function scannedHub(ctx: CommandContext, options: { sayUnsynced?: boolean } = {}): Promise<Hub> {
  const hub = oneShotHub(ctx);
  await hub.git?.verifyCopies();
  hub.scanNow();
  if (options.sayUnsynced === false) return hub;
  const note = toolsFolderNote(ctx, hub);
  if (note) ctx.err(`skillhub: ${note}\n`);
  // A command does not sync (a server does, at start): a repository never synced here adds no skills, and
  // an empty list without a word would look like a broken setup. doctor and sources say it themselves.
  for (const r of hub.git?.status() ?? [])
    if (!r.state)
      ctx.err(
        `skillhub: repository ${r.name} (${r.url}) is not synced yet, so its skills are left out; ${fetchAdvice(hub, r.name)}.\n`,
      );
  return hub;
}

/**
 * Why `<project>/skills` is read when no `--root` names it: the tools setting offers the `sk` profile's
 * tools, whose folder it is (tools/support/sk-summary.ts). A command reads what a server started with the
 * same settings serves, so it reads that folder too, and says why. Undefined when no such folder is read.
 */
export function toolsFolderNote(ctx: CommandContext, hub: Hub): string | undefined {
  if (ctx.config.sources.project_skills !== undefined) return undefined;
  const folder = hub.catalog.sources.find((s) => s.label === "project-skills" && s.exists);
  if (!folder) return undefined;
  const tools = ctx.config.server.tools;
  const setting =
    ctx.args.flags.tools !== undefined
      ? `--tools ${tools}`
      : ctx.env.SKILLHUB_TOOLS
        ? `SKILLHUB_TOOLS=${tools}`
        : `server.tools: ${tools} (config file)`;
  return `${folder.dir} is read (source project-skills) because ${setting} offers skills.list and skills.search, which read the project's skills/ folder; a server started with that setting serves it too (--root DIR names another folder).`;
}
