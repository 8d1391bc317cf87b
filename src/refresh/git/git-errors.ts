import { SkillHubError } from "../../util/errors.ts";

export type GitErrorCode =
  | "GIT_NOT_FOUND"
  | "GIT_AUTH_FAILED"
  | "GIT_UNREACHABLE"
  | "GIT_BRANCH_NOT_FOUND"
  | "GIT_TIMEOUT"
  /** The pinned tag or commit (or the lock's commit) is not in the repository. */
  | "GIT_REF_NOT_FOUND"
  /**
   * The lock's commit is not in the history of the configured branch or tag: a fork's commit (which the
   * server hands out by its hash), a force-pushed branch, a moved tag.
   */
  | "GIT_COMMIT_NOT_IN_REF"
  /** trust.allowed_signers: the commit is unsigned or signed by a key not listed. */
  | "GIT_SIGNATURE_INVALID"
  /**
   * trust.allowed_signers: the followed branch's new tip does not descend from the copy's verified commit (a
   * force-push back to an older signed commit, or rewritten history), or a lock's commit is older than one
   * of its branch or tag this machine has verified; taken only with `sync --update`.
   */
  | "GIT_HISTORY_REWRITTEN"
  /** git.max_repo_bytes: a sync brought, or would check out, more than the limit (git-size-limit.ts). */
  | "GIT_TOO_LARGE"
  /** Another SkillHub process held the copy's lock too long (reported, never thrown; see git-lock.ts). */
  | "GIT_LOCKED"
  /** Frozen: the lock records no commit of the configured URL and ref, so nothing was fetched (reported). */
  | "GIT_NOT_LOCKED"
  | "GIT_FAILED";

/** A git sync failure. Messages never contain a credential (they are built from scrubbed text). */
export class GitError extends SkillHubError {
  declare readonly code: GitErrorCode;

  constructor(
    code: GitErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(code, message, options);
    this.name = "GitError";
  }
}

export interface FailureContext {
  /** The repository URL, credentials removed. */
  url: string;
  branch: string;
  /** Whether a token or URL credentials were sent. */
  withCredentials: boolean;
  /** Scrubbed stderr of the failed command. */
  stderr: string;
  timedOut: boolean;
  timeoutMs: number;
}

const AUTH =
  /Authentication failed|could not read (Username|Password)|terminal prompts disabled|HTTP (Basic: )?Access denied|returned error: 40[13]|Invalid username or password|Permission denied \(publickey|Repository not found|Bad credentials|invalid credentials/i;
const UNREACHABLE =
  /Could not resolve host|Failed to connect|Connection refused|Connection timed out|Network is unreachable|unable to access|Could not read from remote repository|does not appear to be a git repository|Operation timed out|No route to host|SSL|Connection reset|unable to connect|Temporary failure in name resolution/i;
const BRANCH = /Remote branch .* not found|couldn't find remote ref/i;
/** git's refusal of a transport (GIT_ALLOW_PROTOCOL, protocol.allow): before UNREACHABLE, which may follow it. */
const REFUSED_TRANSPORT = /transport '([^']*)' not allowed/i;

/** Turn a failed network command into an error that says what to do. */
export function classifyFailure(ctx: FailureContext): GitError {
  const detail = gitMessage(ctx.stderr);
  const details = { url: ctx.url, branch: ctx.branch, git: detail };
  if (ctx.timedOut) {
    return new GitError(
      "GIT_TIMEOUT",
      `git gave no answer from ${ctx.url} within ${Math.round(ctx.timeoutMs / 1000)} s; check the network or proxy, the next refresh tries again.`,
      { details },
    );
  }
  if (BRANCH.test(ctx.stderr)) {
    return new GitError(
      "GIT_BRANCH_NOT_FOUND",
      `branch '${ctx.branch}' does not exist in ${ctx.url}; set SKILLS_BRANCH (or git.branch in config.yaml) to an existing branch.`,
      { details },
    );
  }
  if (AUTH.test(ctx.stderr)) {
    const fix = ctx.withCredentials
      ? "the token was rejected: it is expired, revoked, or has no read access to this repository. Create a new one with read access to the repository's contents (GitHub: Settings → Developer settings → Personal access tokens), put it in GITHUB_TOKEN in the MCP server's environment, then restart the server or call refresh_skills."
      : "for a private repository set GITHUB_TOKEN (a token with read access to its contents) in the MCP server's environment, or set up a git credential helper or an SSH key for this host, then restart the server or call refresh_skills.";
    return new GitError(
      "GIT_AUTH_FAILED",
      `authentication to ${ctx.url} failed (or the repository does not exist): ${fix}`,
      { details },
    );
  }
  const refused = REFUSED_TRANSPORT.exec(ctx.stderr);
  if (refused) {
    return new GitError(
      "GIT_FAILED",
      `transport '${refused[1]}' is not allowed for ${ctx.url}, so git refused it (a project's repositories may use https, ssh, git, http and file only; your own, what git's protocol.allow lets through): check the URL, and any url.<base>.insteadOf rule of your git config that rewrites it.`,
      { details },
    );
  }
  if (UNREACHABLE.test(ctx.stderr)) {
    return new GitError("GIT_UNREACHABLE", `cannot reach ${ctx.url}: ${detail || "no answer"}.`, { details });
  }
  return new GitError("GIT_FAILED", `git failed for ${ctx.url}: ${detail || "no message"}.`, { details });
}

/** The meaningful line of git's stderr (its first fatal/error line, else the last one), without a final period. */
export function gitMessage(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/^(hint|Cloning into|remote: (Enumerating|Counting|Compressing|Total))/i.test(l));
  const line = lines.find((l) => /^(fatal|error):/i.test(l)) ?? lines.at(-1) ?? "";
  return line
    .replace(/^(fatal|error): /i, "")
    .replace(/[.\s]+$/, "")
    .slice(0, 400);
}
