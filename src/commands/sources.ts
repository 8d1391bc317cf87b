import { existsSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { PROJECT_CONFIG_FILE } from "../config/project-file.ts";
import { configRepoTargets, repoEntry, sourceKey, targetKey } from "../refresh/repo-targets.ts";
import { expandHome } from "../util/home-path.ts";
import { program } from "../util/program-name.ts";
import { type CommandContext, type CommandRun, flagFolders, scannedHub } from "./context.ts";
import { snakeKeys } from "./doctor.ts";
import { lockedCommits } from "./fetch-advice.ts";
import { projectDirOf } from "./source-files.ts";

/** One added source as `skillhub sources` shows it. */
interface Row {
  label: string;
  kind: "git" | "folder";
  /** The URL, or the folder. */
  where: string;
  path?: string;
  ref?: string;
  branch?: string;
  /** The file or setting it comes from. */
  origin: string;
  /** The commit skillhub.lock pins it to. */
  lockedCommit?: string;
  /** The commit its local copy is at. */
  copyCommit?: string;
  /** Why its copy on disk is not served: another repository's (`foreignOrigin`), or trust.allowed_signers refuses it. */
  notServed?: string;
  /** Its copy is another repository's: the origin the copy records (null: none), and the configured one. */
  foreignOrigin?: { found: string | null; expected: string };
  skills: number;
  shadowed: number;
}

/**
 * `skillhub sources [--json]`: the sources added to this project (its skillhub.yaml) and the user's
 * own (~/.skillhub/config.yaml, SKILLS_REPO, --skills-dir, SKILLS_DIR): repositories with their
 * folder, ref or branch, the commit skillhub.lock pins and the copy's, and what each serves; then
 * duplicates and shadowed skills, as `doctor` reports them.
 */
export const runSources: CommandRun = async (ctx) => {
  const hub = await scannedHub(ctx, { sayUnsynced: false });
  try {
    const c = ctx.config;
    const projectDir = projectDirOf(ctx);
    const projectFile = projectDir ? join(projectDir, PROJECT_CONFIG_FILE) : undefined;
    const userFile = `${join(c.home, "config.yaml")}${ctx.args.options.config ? ` / ${ctx.args.options.config}` : ""}`;
    const userOrigin = ctx.env.SKILLS_REPO ? "SKILLS_REPO (environment)" : userFile;
    const locked = lockedCommits(hub, (error) => ctx.err(`skillhub sources: ${error.message}\n`));
    const status = new Map((hub.git?.status() ?? []).map((s) => [s.name, s]));
    const counts = new Map(hub.catalog.sources.map((s) => [s.label, s]));
    const rows: Row[] = [];
    for (const t of configRepoTargets(c)) {
      const repo = status.get(t.label);
      const count = counts.get(t.label);
      rows.push({
        label: t.label,
        kind: "git",
        where: t.spec.url,
        ...(t.path ? { path: t.path } : {}),
        ...(t.ref ? { ref: t.ref } : { branch: t.branch }),
        origin: t.project && projectFile ? projectFile : userOrigin,
        lockedCommit: locked.get(t.label),
        copyCommit: repo?.state?.commit,
        ...(repo?.state && repo.not_served ? { notServed: repo.not_served } : {}),
        ...(repo?.foreign_origin ? { foreignOrigin: repo.foreign_origin } : {}),
        skills: count?.served ?? 0,
        shadowed: count?.shadowed ?? 0,
      });
    }
    const folders = [
      ...c.sources.project_dirs.map((dir) => ({ dir, origin: projectFile ?? PROJECT_CONFIG_FILE })),
      ...c.sources.dirs.map((dir) => ({ dir, origin: folderOrigin(dir, ctx, userFile) })),
    ];
    for (const { dir, origin } of folders) {
      const count = hub.catalog.sources.find((s) => s.dir === dir);
      rows.push({
        label: count?.label ?? "-",
        kind: "folder",
        where: dir,
        origin,
        skills: count?.served ?? 0,
        shadowed: count?.shadowed ?? 0,
      });
    }
    // An entry for a repository and folder listed earlier is not synced twice: the first one is used.
    const seen = new Map<string, string>();
    const duplicates: { url: string; path?: string; duplicateOf: string }[] = [];
    const targets = configRepoTargets(c);
    for (const item of c.git.repos) {
      const entry = repoEntry(item);
      const key = sourceKey(entry);
      const first = seen.get(key);
      if (first) duplicates.push({ url: entry.url, ...(entry.path ? { path: entry.path } : {}), duplicateOf: first });
      else seen.set(key, targets.find((t) => targetKey(t) === key)?.label ?? entry.url);
    }
    const labels = new Set(rows.map((r) => r.label));
    const shadowed = hub.catalog.shadowed.filter(({ skill, by }) => labels.has(skill.source) || labels.has(by.source));
    if (ctx.args.options.json) {
      const report = {
        projectFile: projectFile ?? null,
        lockFile: hub.lockFile(),
        sources: rows,
        duplicates,
        shadowed: shadowed.map(({ skill, by }) => ({ name: skill.name, qualified: skill.id, shadowedBy: by.id })),
      };
      ctx.out(`${JSON.stringify(snakeKeys(report), null, 2)}\n`);
      return 0;
    }
    if (rows.length === 0) {
      ctx.out(
        `No sources added${projectFile ? ` (${projectFile} lists none)` : ""}. Add one with \`${program()} add owner/repo\` (GitHub), a git URL or a folder; \`${program()} doctor\` shows every folder read.\n`,
      );
      return 0;
    }
    const lines: string[] = [];
    for (const origin of [...new Set(rows.map((r) => r.origin))]) {
      lines.push(`${origin}:`);
      for (const r of rows.filter((row) => row.origin === origin)) lines.push(...rowLines(r));
    }
    for (const d of duplicates)
      lines.push(
        `duplicate: ${d.url}${d.path ? ` (folder ${d.path})` : ""} is listed again; ${d.duplicateOf} is used.`,
      );
    if (shadowed.length > 0) {
      lines.push("", `Shadowed skills (${shadowed.length}; load them by qualified name):`);
      for (const { skill, by } of shadowed) lines.push(`  ${skill.id}  ${skill.dir}  (hidden by ${by.dir})`);
    }
    lines.push(
      "",
      `Pins: ${hub
        .lockTargets()
        .map((t) => (existsSync(t.file) ? t.file : `${t.file} (not written yet)`))
        .join(", ")}.`,
    );
    ctx.out(`${lines.join("\n")}\n`);
    return 0;
  } finally {
    hub.close();
  }
};

/**
 * Where an explicit folder comes from: a --skills-dir flag, SKILLS_DIR, or else the user's config file
 * (`skillhub add --global DIR` writes there). A folder named twice is read at its first place, so it is
 * shown there.
 */
function folderOrigin(dir: string, ctx: CommandContext, userFile: string): string {
  if (flagFolders(ctx).includes(dir)) return "--skills-dir";
  const env = (ctx.env.SKILLS_DIR ?? "")
    .split(delimiter)
    .map((d) => d.trim())
    .filter(Boolean)
    .map((d) => resolve(ctx.cwd, expandHome(d, ctx.homeDir)));
  return env.includes(dir) ? "SKILLS_DIR (environment)" : userFile;
}

function rowLines(r: Row): string[] {
  const served = `${r.skills} skill${r.skills === 1 ? "" : "s"}${r.shadowed ? `, ${r.shadowed} shadowed` : ""}`;
  if (r.kind === "folder") return [`  ${r.label}  ${r.where}  (${served})`];
  const follows = r.ref ? `pinned to ${r.ref}` : `branch ${r.branch}`;
  const lock = r.lockedCommit ? `locked at ${r.lockedCommit.slice(0, 12)}` : "not in skillhub.lock";
  const copy = r.copyCommit ? `copy at ${r.copyCommit.slice(0, 12)}` : "not synced yet";
  // A copy that is there but refused would otherwise read as a repository without skills.
  const refused = r.foreignOrigin
    ? [`    not served: ${r.notServed?.replace(/\.$/, "")}; \`${program()} sync\` clones it again in its place`]
    : r.notServed
      ? [
          `    not served: trust.allowed_signers refuses the copy; \`${program()} doctor\` says why and what serves it again`,
        ]
      : [];
  return [
    `  ${r.label}  ${r.where}${r.path ? `  folder ${r.path}` : ""}`,
    `    ${follows}; ${lock}; ${copy}  (${served})`,
    ...refused,
  ];
}
