import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { bufferFile, localFile } from "../analytics/setup.ts";
import { type UsageSummary, UsageTally } from "../analytics/stats.ts";
import { UsageFile } from "../analytics/usage-file.ts";
import { program } from "../util/program-name.ts";
import { type CommandRun, scannedHub } from "./context.ts";

/**
 * `skillhub stats [--json] [--since DATE] [FILE...]`: the usage
 * metrics from the local analytics file (and the unsent buffer), or from
 * the JSONL files given.
 */
export const runStats: CommandRun = async (ctx) => {
  const since = ctx.args.options.since;
  const sinceMs = since === undefined ? undefined : sinceTime(since, Date.now());
  if (since !== undefined && (sinceMs === undefined || Number.isNaN(sinceMs))) {
    ctx.err(
      `skillhub stats: --since ${JSON.stringify(since)} is neither a date nor a time ago; use e.g. 2026-02-01, 2026-02-01T09:00:00Z, 7d, 12h or 2w.\n`,
    );
    return 2;
  }
  const files =
    ctx.args.positionals.length > 0 ? ctx.args.positionals.map((f) => resolve(ctx.cwd, f)) : defaultFiles(ctx.config);
  const missing = ctx.args.positionals.length > 0 ? files.filter((f) => !existsSync(f)) : [];
  if (missing.length > 0) {
    ctx.err(`skillhub stats: no such file: ${missing.join(", ")}.\n`);
    return 2;
  }
  // The page's aggregation (analytics/usage-file.ts), read in chunks: memory follows the counts, not the file.
  const tally = new UsageTally();
  let malformed = 0;
  for (const file of files) {
    // A FIFO or a device named here is refused with a sentence, never opened.
    const read = new UsageFile(file, {
      final: true,
      accept: sinceMs === undefined ? undefined : (e) => Date.parse(e.timestamp) >= sinceMs,
    });
    await read.update();
    if (read.problem) ctx.err(`skillhub stats: warning: ${read.problem}\n`);
    tally.merge(read.tally);
    malformed += read.malformed;
  }
  const hub = await scannedHub(ctx);
  const summary = tally.summary({
    catalog: hub.catalog.skills.map((s) => s.name),
    limit: ctx.args.options.json ? 100 : 10,
  });
  hub.close();
  if (ctx.args.options.json) {
    ctx.out(
      `${JSON.stringify({ files: files.filter((f) => existsSync(f)), malformed_lines: malformed, ...summary }, null, 2)}\n`,
    );
    return 0;
  }
  if (summary.events === 0) {
    // Analytics on (a file, or a team repository's config.yaml) but no server has written an event yet.
    const configured = ctx.args.positionals.length > 0 ? undefined : localFile(ctx.config);
    if (configured !== undefined && files.length === 0) {
      ctx.out(
        `No analytics events${since ? ` since ${since}` : ""} yet: analytics is on, and ${configured} is written once a server records its first events (every ${ctx.config.analytics.flush_seconds} s).\n`,
      );
      return 0;
    }
    const where = files.length > 0 ? `in ${files.join(", ")}` : "to show: no analytics file is configured";
    ctx.out(
      `No analytics events${since ? ` since ${since}` : ""} ${where}.\nTurn on local analytics with SKILLHUB_ANALYTICS_FILE=<file> (or analytics.file in config.yaml), or pass JSONL files collected by your endpoint: ${program()} stats FILE...\n`,
    );
    return 0;
  }
  ctx.out(render(summary, files, malformed));
  return 0;
};

/** The configured local file (or `<home>/analytics.jsonl`) and the unsent buffer. */
function defaultFiles(config: Parameters<typeof localFile>[0]): string[] {
  return [localFile(config) ?? join(config.home, "analytics.jsonl"), bufferFile(config)].filter((f) => existsSync(f));
}

function render(s: UsageSummary, files: string[], malformed: number): string {
  const lines: string[] = [];
  const pct = (r: number) => `${Math.round(r * 100)}%`;
  lines.push(`${s.events} events from ${s.period.from} to ${s.period.to}`);
  lines.push(
    `  ${Object.entries(s.by_type)
      .map(([t, n]) => `${t} ${n}`)
      .join(", ")}`,
  );
  lines.push(`  files: ${files.join(", ")}${malformed > 0 ? ` (${malformed} unreadable lines skipped)` : ""}`);
  section(
    lines,
    "Most used skills",
    s.most_used,
    (u) =>
      `${String(u.uses).padStart(5)}  ${u.skill}${u.average_score === null ? "" : `  (average match score ${u.average_score})`}`,
  );
  section(
    lines,
    `Never used skills (${s.never_used.length})`,
    s.never_used.slice(0, 30),
    (name) => `       ${name}`,
    s.never_used.length > 30 ? `       …and ${s.never_used.length - 30} more (--json lists them all)` : undefined,
  );
  section(
    lines,
    "Requests with no matching skill (get_skill)",
    s.no_match,
    (n) =>
      `${String(n.count).padStart(5)}  ${JSON.stringify(n.context)}${n.closest ? `  (closest: ${n.closest})` : ""}`,
  );
  section(
    lines,
    "Searches with no result",
    s.failed_searches,
    (q) => `${String(q.count).padStart(5)}  ${JSON.stringify(q.query)}`,
  );
  section(
    lines,
    "Ambiguous requests",
    s.ambiguous,
    (a) => `${String(a.count).padStart(5)}  ${JSON.stringify(a.context)} → ${a.candidates.join(", ")}`,
  );
  const negative = s.feedback.filter((f) => f.not_useful > 0);
  section(lines, "Negative feedback", negative, (f) => {
    const head = `${String(f.not_useful).padStart(5)}  ${f.skill}  (${pct(f.not_useful_rate)} of ${f.useful + f.not_useful} reports not useful)`;
    return [head, ...f.comments.slice(-5).map((c) => `         - ${c.replace(/\s+/g, " ").slice(0, 200)}`)].join("\n");
  });
  section(lines, "Most retrieved assets", s.assets, (a) => `${String(a.count).padStart(5)}  ${a.skill}: ${a.file}`);
  section(
    lines,
    "Scripts (failure rate)",
    s.scripts,
    (x) =>
      `${pct(x.failure_rate).padStart(5)}  ${x.skill}: ${x.file}  (${x.failures}/${x.runs} failed${x.average_duration_ms === null ? "" : `, ${Math.round(x.average_duration_ms)} ms on average`})`,
  );
  if (Object.keys(s.execution_modes).length > 0)
    lines.push(
      "",
      `Script executions by mode: ${Object.entries(s.execution_modes)
        .map(([m, n]) => `${m} ${n}`)
        .join(", ")}`,
    );
  return `${lines.join("\n")}\n`;
}

function section<T>(
  lines: string[],
  title: string,
  items: readonly T[],
  line: (item: T) => string,
  more?: string,
): void {
  if (items.length === 0) return;
  lines.push("", `${title}:`);
  for (const item of items) lines.push(line(item));
  if (more) lines.push(more);
}

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `--since`'s start: a date or time (ISO 8601), or a time ago in minutes, hours, days or weeks (`30m`, `7d`). */
function sinceTime(text: string, now: number): number {
  const ago = /^\s*(\d+)\s*([mhdw])\s*$/i.exec(text);
  if (ago) return now - Number(ago[1]) * (UNIT_MS[(ago[2] as string).toLowerCase()] as number);
  return Date.parse(text);
}
