import { resolve } from "node:path";
import { ConfigFileEdit } from "../config/config-edit.ts";
import { copyIdentity, withoutCredentials } from "../refresh/git/git-url.ts";
import { configRepoTargets, repoEntry, repoPath, sourceKey, targetKey } from "../refresh/repo-targets.ts";
import { program } from "../util/program-name.ts";
import { scrubUrlCredentials } from "../util/url-credentials.ts";
import { type CommandContext, type CommandRun, scannedHub } from "./context.ts";
import { reloaded } from "./load-settings.ts";
import { writeLocks } from "./lock.ts";
import { unreadableLock } from "./lock-state.ts";
import { type SourceFile, sourceFile } from "./source-files.ts";
import { parseSource, SourceError } from "./source-spec.ts";

/** Where a source sits in its file: a `git.repos` item or a `sources.dirs` one. */
type Found = { kind: "repo"; index: number } | { kind: "dir"; index: number; dir: string };

/**
 * `skillhub remove SOURCE... [--global]`: take sources out of the project's skillhub.yaml (or
 * ~/.skillhub/config.yaml), then write the lock and say which skills are no longer served. A source
 * is named as `add` took it, or by its label (what `skillhub sources` shows). The repository's copy
 * stays in ~/.skillhub/repos as a cache.
 */
export const runRemove: CommandRun = async (ctx) => {
  const usage = (text: string, code = 2) => {
    ctx.err(`skillhub remove: ${scrubUrlCredentials(text)}\n`);
    return code;
  };
  if (ctx.args.positionals.length === 0) return usage(`name a source, as \`${program()} sources\` lists it.`);
  if (ctx.config.lock.frozen)
    return usage("--frozen serves only what skillhub.lock records, and removing a source changes it: run it without.");
  const where = sourceFile(ctx, ctx.args.options.global);
  if (typeof where === "string") return usage(where);
  const within = where.scope === "project" ? (where.projectDir ?? undefined) : undefined;
  const edit = ConfigFileEdit.open(where.file, where.header, within);
  const broken = unreadableLock(ctx);
  if (broken) return usage(`${broken}; nothing was removed.`);
  const found: (Found & { word: string })[] = [];
  for (const word of ctx.args.positionals) {
    const hit = find(ctx, edit, where, word);
    if (typeof hit === "string") return usage(hit, 1);
    found.push({ ...hit, word });
  }
  // What each one served, to say what is gone.
  const before = await scannedHub(ctx);
  const previous = before.sources();
  const labels = new Map(configRepoTargets(ctx.config).map((t) => [targetKey(t), t.label]));
  const served = found.map((f) => {
    const label =
      f.kind === "repo"
        ? labels.get(sourceKey(repoEntry(edit.repos()[f.index] ?? "")))
        : before.catalog.sources.find((s) => s.dir === f.dir)?.label;
    return {
      label,
      names: label
        ? before.catalog.skills
            .filter((s) => s.source === label)
            .map((s) => s.name)
            .sort()
        : [],
    };
  });
  before.close();
  // On the file as it is now (it may have changed during the scan): each item found again, once, and taken
  // out from the last up, so that the earlier indexes stay right.
  const gone = ConfigFileEdit.update(where.file, where.header, within, (now) => {
    const items = new Map<string, Found>();
    const missing = new Set<string>();
    for (const { word } of found) {
      const hit = find(ctx, now, where, word);
      if (typeof hit === "string") missing.add(word);
      else items.set(`${hit.kind} ${hit.index}`, hit);
    }
    for (const f of [...items.values()].sort((a, b) => b.index - a.index))
      f.kind === "repo" ? now.removeRepo(f.index) : now.removeDir(f.index);
    return missing;
  });
  found.forEach((f, i) => {
    const shown = withoutCredentials(f.word);
    const { label, names } = served[i] ?? { names: [] };
    const what = names.length > 0 ? `; no longer served from ${label}: ${names.join(", ")}` : "";
    ctx.out(
      gone.has(f.word)
        ? `${shown} was taken out of ${where.file} meanwhile; nothing to remove.\n`
        : `Removed ${shown} from ${where.file}${what}.\n`,
    );
  });
  // The lock entries of the sources removed go; every other one stays as it was.
  const removed = new Set(served.flatMap((s) => (s.label ? [s.label] : [])));
  return (await writeLocks(await reloaded(ctx), { sources: removed, previous })) === 0 ? 0 : 1;
};

/** The item of `edit` that `word` names, or the sentence saying why there is none. */
function find(ctx: CommandContext, edit: ConfigFileEdit, where: SourceFile, word: string): Found | string {
  let spec: ReturnType<typeof parseSource> | undefined;
  try {
    spec = parseSource(word, { cwd: ctx.cwd, homeDir: ctx.homeDir, missingFolders: true });
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    // Not a source's form: it may still be a label.
  }
  const hit = match(ctx, edit, where, word, spec);
  if (hit !== undefined) return hit;
  // Not here: is it in the other file?
  const other = sourceFile(ctx, where.scope === "project");
  if (typeof other !== "string" && other.file !== where.file) {
    const there = ConfigFileEdit.open(other.file, other.header);
    if (!there.created && typeof match(ctx, there, other, word, spec) === "object")
      return `${withoutCredentials(word)} is a source in ${other.file}, not in ${where.file}: run remove ${where.scope === "project" ? "with" : "without"} --global.`;
  }
  return `${withoutCredentials(word)} is not a source in ${where.file}; \`${program()} sources\` lists them.`;
}

/** The item of `edit` that `word` (parsed as `spec`, when it parses) names: by label, URL and folder, or path. */
function match(
  ctx: CommandContext,
  edit: ConfigFileEdit,
  where: SourceFile,
  word: string,
  spec: ReturnType<typeof parseSource> | undefined,
): Found | string | undefined {
  const repos = edit.repos().map(repoEntry);
  // A label, as `skillhub sources` prints it.
  const target = configRepoTargets(ctx.config).find((t) => t.label === word);
  const byLabel = target ? repos.findIndex((r) => sourceKey(r) === targetKey(target)) : -1;
  if (byLabel >= 0) return { kind: "repo", index: byLabel };
  if (!spec) return undefined;
  if (spec.kind === "folder") {
    const index = edit.dirs().findIndex((d) => resolve(where.projectDir ?? ctx.cwd, d) === spec.dir);
    return index >= 0 ? { kind: "dir", index, dir: spec.dir } : undefined;
  }
  const identity = copyIdentity(spec.url);
  const path = repoPath(spec.path ?? ctx.args.options.path, word);
  const same = repos.flatMap((r, index) => (copyIdentity(r.url) === identity ? [{ r, index }] : []));
  const exact = same.find(({ r }) => repoPath(r.path, word) === path);
  if (exact) return { kind: "repo", index: exact.index };
  if (path === undefined && same.length === 1) return { kind: "repo", index: same[0]?.index as number };
  if (same.length > 1)
    return `several sources come from ${spec.url} (folders ${same.map(({ r }) => r.path ?? "(root)").join(", ")}): name one as ${word}/FOLDER or by its label.`;
  return undefined;
}
