import { join } from "node:path";
import { isReservedLabel } from "../sources/source-list.ts";
import { ConfigError } from "../util/errors.ts";
import { scrubUrlCredentials } from "../util/url-credentials.ts";
import { FULL_COMMIT, type RepoTarget } from "./git/git-target.ts";
import { parseRepo } from "./git/git-url.ts";

const BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._/-]{1,200}(?<![./])$/;
/** A tag name git accepts (and that cannot be read as an option), or a full commit hash. */
const REF = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)[A-Za-z0-9._/+@-]{1,200}(?<![./])$/;

/**
 * The configured repositories as sync targets: validated branch, ref and
 * URLs, one per repository (duplicates dropped), each with a unique source
 * label and its copy's folder under `<home>/repos`. Throws ConfigError.
 */
export function repoTargets(options: {
  repos: readonly string[];
  branch: string;
  ref?: string;
  home: string;
}): RepoTarget[] {
  if (!BRANCH.test(options.branch)) {
    throw new ConfigError(
      `Invalid configuration: SKILLS_BRANCH / git.branch = ${JSON.stringify(options.branch)}: expected a branch name.`,
      { key: "git.branch" },
    );
  }
  if (options.ref !== undefined && !REF.test(options.ref) && !FULL_COMMIT.test(options.ref)) {
    throw new ConfigError(
      `Invalid configuration: SKILLS_REF / git.ref = ${JSON.stringify(options.ref)}: expected a tag name or a full commit hash (40 hex).`,
      { key: "git.ref" },
    );
  }
  const used = new Set<string>();
  const targets: RepoTarget[] = [];
  for (const raw of options.repos) {
    if (raw.trim().startsWith("-")) {
      throw new ConfigError(
        `Invalid configuration: SKILLS_REPO / repos entry ${JSON.stringify(scrubUrlCredentials(raw))}: expected a git URL.`,
        { key: "git.repos" },
      );
    }
    const spec = parseRepo(raw);
    if (targets.some((t) => t.spec.slug === spec.slug)) continue;
    // A repository never takes a fixed source's label (DESIGN §3).
    const wanted = isReservedLabel(spec.name) ? `repo-${spec.name}` : spec.name;
    let label = wanted;
    for (let n = 2; used.has(label); n++) label = `${wanted}-${n}`;
    used.add(label);
    const target: RepoTarget = {
      spec,
      label,
      dir: join(options.home, "repos", spec.slug),
      branch: options.branch,
      // A commit hash is compared with git's (lower-case) output.
      ...(options.ref
        ? { ref: FULL_COMMIT.test(options.ref.toLowerCase()) ? options.ref.toLowerCase() : options.ref }
        : {}),
    };
    targets.push(target);
  }
  return targets;
}
