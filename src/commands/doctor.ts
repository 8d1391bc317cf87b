import type { Catalog } from "../catalog/catalog.ts";
import { describeFilter } from "../catalog/filters.ts";
import { describeWatches, probeWatches } from "../refresh/folder-watchers.ts";
import { describeEmbedding, embeddingSettings, searchMode } from "../search/embeddings/settings.ts";
import { publicationReport } from "../server/skills-extension/report.ts";
import { refuseToBind, weakToken } from "../transports/http-security.ts";
import { alignColumns } from "../util/columns.ts";
import { formatDiagnostic } from "../util/diagnostic.ts";
import { folderProblem, namedFolderWarnings } from "../util/folder-check.ts";
import { program } from "../util/program-name.ts";
import { VERSION } from "../version.ts";
import { type CommandRun, scannedHub, toolsFolderNote } from "./context.ts";
import { frozenReport } from "./lock-refusals.ts";
import { parentProjectNote } from "./parent-project.ts";
import { teamJson, teamLines, unservedRepos } from "./team-status.ts";
import { unreadSkillsNote } from "./unread-skills.ts";

/** `skillhub doctor`: where skills come from, what was found, and what is wrong. */
export const runDoctor: CommandRun = async (ctx) => {
  const hub = await scannedHub(ctx, { sayUnsynced: false });
  const catalog = hub.catalog;
  const root = hub.projectRoot;
  const c = ctx.config;
  const tools = hub.tools().map((t) => t.name);
  // What a server here would watch, tried now: a system out of watches is said here as in the server's log.
  const watches = c.sources.watch ? await probeWatches(hub.refresher.watchTargets()) : undefined;
  const http = c.server.transport === "http" ? httpReport(c.server) : undefined;
  // A guessable token is the configuration's warning, counted as the others are.
  const configWarnings = [
    ...ctx.configWarnings,
    ...namedFolderWarnings(c.sources),
    ...(http?.json.warning ? [http.json.warning] : []),
  ];
  // Frozen: which locks, and the skills they keep from being served, counted as not served.
  const frozen = await frozenReport(hub, (items, what) => shortened(items, ctx.args.options.all, what));
  if (ctx.args.options.json) {
    // One key style for every --json output (validate's, and the config keys): snake_case.
    const report = snakeKeys({
      version: VERSION,
      project_root: root,
      sources: catalog.sources,
      shadowed: catalog.shadowed.map(({ skill, by }) => ({
        name: skill.name,
        qualified: skill.id,
        path: skill.dir,
        shadowed_by: by.dir,
      })),
      diagnostics: catalog.diagnostics,
      config_warnings: configWarnings,
      tools,
      watches: watches ?? null,
      ...(await teamJson(hub)),
      ...(frozen ? { frozen: frozen.json } : {}),
      ...(http ? { http: http.json } : {}),
    });
    ctx.out(`${JSON.stringify(report, null, 2)}\n`);
    return catalog.diagnostics.some((d) => d.severity === "error") ||
      missingNamed(catalog).length > 0 ||
      unservedRepos(hub).length > 0 ||
      frozen?.failed ||
      http?.json.refused
      ? 1
      : 0;
  }
  const lines: string[] = [`SkillHub ${VERSION}`, ""];
  lines.push(`Project root: ${root.dir ?? "(none)"}`, `  found by: ${root.how}`);
  const parent = parentProjectNote(root, ctx.homeDir);
  if (parent) lines.push(`  note: ${parent}`);
  if (c.server.transport === "http") {
    if (!c.sources.project)
      lines.push(
        "  note: over HTTP one server is shared by every client, so client roots are ignored; pass --project DIR to serve a project's skills.",
      );
  } else if (!c.sources.project) {
    lines.push("  note: when a client reports MCP roots, its first file:// root replaces the working directory.");
  }
  lines.push("", "Sources (searched in this order; the first one holding a name wins):");
  const rows = catalog.sources.map((s) => {
    const state = s.exists
      ? `${s.served} skill${s.served === 1 ? "" : "s"}${s.shadowed ? `, ${s.shadowed} shadowed` : ""}`
      : folderProblem(s.dir)?.kind === "file"
        ? "a file, not a folder"
        : "not present";
    return [s.label, s.location, `${s.dir}  (${state})`];
  });
  for (const [i, row] of alignColumns(rows).entries()) lines.push(`  ${String(i + 1).padStart(2)}. ${row}`);
  const missing = missingNamed(catalog);
  for (const dir of missing) lines.push(`  problem: ${dir} was named as a skills folder and is not one.`);
  const toolsFolder = toolsFolderNote(ctx, hub);
  if (toolsFolder) lines.push(`  note: ${toolsFolder}`);
  lines.push(...(await teamLines(hub)));
  lines.push(...(frozen?.lines ?? []));
  lines.push("", `Skills served: ${catalog.skills.length - (frozen?.refused ?? 0)}`);
  if (frozen?.refused) lines.push(`  Not served in frozen mode: ${frozen.refused} (see Lock above).`);
  const unserved = unservedRepos(hub);
  if (unserved.length > 0)
    lines.push(
      `  Not served: the skills of ${unserved.length === 1 ? "repository" : "repositories"} ${unserved.join(", ")} (see Git repositories above).`,
    );
  else {
    const unread = unreadSkillsNote(ctx.cwd, catalog);
    if (unread) lines.push(`  ${unread}`);
    else if (catalog.skills.length === 0)
      lines.push("  Put skill folders (each with a SKILL.md) in one of the folders above, or pass --skills-dir DIR.");
  }
  const all = ctx.args.options.all;
  lines.push(...(await publicationReport(hub, (items, what) => shortened(items, all, what))));
  if (catalog.shadowed.length > 0) {
    lines.push("", `Shadowed skills (${catalog.shadowed.length}; load them by qualified name):`);
    const hidden = catalog.shadowed.map(({ skill, by }) => `  ${skill.id}  ${skill.dir}  (hidden by ${by.dir})`);
    lines.push(...shortened(hidden, all, "shadowed skills"));
  }
  const problems = catalog.diagnostics.filter((d) => d.code !== "shadowed");
  const errors = problems.filter((d) => d.severity === "error").length;
  // Config warnings are warnings too: counted with the skills' ones.
  const warnings = problems.length - errors + configWarnings.length;
  lines.push(
    "",
    `Diagnostics: ${errors} error${errors === 1 ? "" : "s"} (what they name is not served), ${warnings} warning${warnings === 1 ? "" : "s"}`,
  );
  // Errors (skills not served) and the config's warnings in full; a collection's repeated warnings shortened.
  for (const d of problems) if (d.severity === "error") lines.push(`  ${formatDiagnostic(d)}`);
  for (const w of configWarnings) lines.push(`  warning config ${w}`);
  const skillWarnings = problems.filter((d) => d.severity !== "error").map((d) => `  ${formatDiagnostic(d)}`);
  lines.push(...shortened(skillWarnings, all, "warnings"));
  lines.push("", "Configuration:");
  // A profile (auto, hub, all, …) is shown with the tools it offers; a list that names them all is shown as it is.
  const offered = tools.join(", ");
  lines.push(
    `  tools: ${c.server.tools}${c.server.tools.replace(/\s*,\s*/g, ", ") === offered ? "" : ` → ${offered}`}`,
  );
  lines.push(`  filters: ${describeFilter(hub.filter)}`);
  lines.push(
    `  rescan: ${c.sources.rescan_seconds > 0 ? `a stat check every ${c.sources.rescan_seconds} s of ${watches ? "what no watch covers" : "every folder and skill file"}` : "off"}; watcher: ${watches ? describeWatches(watches, c.sources.rescan_seconds) : "off"}`,
  );
  lines.push(`  search: ${searchMode(c)}; embeddings: ${describeEmbedding(embeddingSettings(c.embedding))}`);
  if (http) lines.push(`  http: ${http.line}`);
  lines.push(`  home: ${c.home}`);
  lines.push(`  log level: ${c.log_level}`);
  ctx.out(`${lines.join("\n")}\n`);
  // As --help says: 1 when the command found a problem (a skill that cannot be served, a folder named that is
  // none, a repository's copy not served).
  return errors > 0 || missing.length > 0 || unserved.length > 0 || frozen?.failed || http?.json.refused ? 1 : 0;
};

/** The skills folders named (--skills-dir, SKILLS_DIR, sources.dirs) that are not folders: a typo, most often. */
function missingNamed(catalog: Catalog): string[] {
  return catalog.sources.filter((s) => s.location === "explicit" && !s.exists).map((s) => s.dir);
}

/** What `serve --transport http` would do with these settings: where it listens, whether clients need the token, or why it would not start. */
function httpReport(server: { host: string; port: number; token?: string; admin_token?: string; stateless: boolean }): {
  line: string;
  json: {
    host: string;
    port: number;
    token_required: boolean;
    stateless: boolean;
    refused: string | null;
    warning: string | null;
  };
} {
  const refused = refuseToBind(server.host, server.token, server.admin_token) ?? null;
  const warning = weakToken(server.token) ?? weakToken(server.admin_token, "SKILLHUB_ADMIN_TOKEN") ?? null;
  const tokenRequired = server.token !== undefined && server.token.length > 0;
  const where = `${server.host}:${server.port}${server.stateless ? ", stateless" : ""}`;
  const asked =
    (tokenRequired ? "clients send the token (SKILLHUB_HTTP_TOKEN)" : "no token asked (this machine only)") +
    (server.admin_token ? "; the page's private views take SKILLHUB_ADMIN_TOKEN" : "");
  return {
    line: refused
      ? `${where}; would not start: ${refused}`
      : `${where}; ${asked}${warning ? " (see Diagnostics)" : ""}`,
    json: {
      host: server.host,
      port: server.port,
      token_required: tokenRequired,
      stateless: server.stateless,
      refused,
      warning,
    },
  };
}

const SHOWN = 10;

/**
 * A long list's first lines and how to see the rest: a collection of a
 * thousand skills repeats one warning hundreds of times, and the report's
 * configuration would scroll out of sight.
 */
function shortened(items: string[], all: boolean, what: string): string[] {
  if (all || items.length <= SHOWN + 1) return items;
  return [
    ...items.slice(0, SHOWN),
    `  … and ${items.length - SHOWN} more ${what} (\`${program()} doctor --all\` lists every one).`,
  ];
}

/** Object keys in snake_case, deeply (camelCase → camel_case); values untouched. Pure. */
export function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase(), snakeKeys(v)]),
  );
}
