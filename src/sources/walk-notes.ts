import { diagnostic } from "../util/diagnostic.ts";
import { errnoCode, errorMessage } from "../util/errors.ts";
import type { WalkResult } from "./walk-types.ts";

/** What a walk says about the entries it could not or would not read (diagnostics in its result). */

/** A folder or file that could not be read; gone ones (ENOENT, ENOTDIR) are not worth a word. */
export function noteUnreadable(result: WalkResult, path: string, error: unknown): void {
  const code = errnoCode(error);
  if (code === "ENOENT" || code === "ENOTDIR") return;
  // Permissions can be fixed without touching any mtime: only a new walk can tell.
  result.record.verifiable = false;
  result.diagnostics.push(
    diagnostic("unreadable", "warning", path, `cannot read (${code ?? errorMessage(error)}); skipped.`),
  );
}

/** Security: FIFOs, sockets and devices are skipped, never opened, and said so. */
export function noteSpecial(result: WalkResult, path: string): void {
  result.diagnostics.push(
    diagnostic(
      "special-file",
      "warning",
      path,
      "is a FIFO, socket or device (or a link to one); never read, so it cannot hold up the scan. Skipped.",
    ),
  );
}

/** What a confined source's links may not leave: its own folder (a synced repository, a plugin), or the project. */
export type Fence = "source" | "project";

/**
 * A link of a confined source whose target is outside its fence (`base`, a real folder): not followed (a
 * folder), not read (a file) or, for a project's folder that is itself such a link, not scanned.
 */
export function noteLinkOutside(
  result: WalkResult,
  path: string,
  real: string,
  base: string,
  fence: Fence,
  what = "not followed",
): void {
  const why =
    fence === "project"
      ? `outside the project ${base}; ${what}: the project's own folders (.agents/skills, .claude/skills, those its skillhub.yaml adds) are confined to the project, which may be a repository you cloned. Link skills in from your own folders instead (~/.claude/skills, ~/.agents/skills, --skills-dir)`
      : `outside its source's folder ${base}; ${what} (synced repositories and plugins are confined to their folder)`;
  result.diagnostics.push(diagnostic("symlink-outside", "warning", path, `links to ${real}, ${why}.`));
}

/** A source folder, a folder or a link that leads into /proc, /sys or /dev: never scanned. */
export function noteSystemFolder(result: WalkResult, path: string, real: string): void {
  result.diagnostics.push(
    diagnostic(
      "system-folder",
      "warning",
      path,
      `${path === real ? "is" : "leads to"} ${real}, a system folder (/proc, /sys, /dev: processes and devices, not skills); not scanned.`,
    ),
  );
}

/** A link of a confined source (a synced repository, a plugin) into version-control metadata (`.git`): not followed. */
export function noteLinkToVersionControl(result: WalkResult, path: string, real: string): void {
  result.diagnostics.push(
    diagnostic(
      "symlink-outside",
      "warning",
      path,
      `links to ${real}, inside version-control metadata (.git), which is no file of the repository; not followed.`,
    ),
  );
}

/**
 * A source folder, a folder or a link in SkillHub's repository copies (`copies`): never scanned as a plain
 * folder. Security: a copy is served only as its repository, after its origin and signature checks.
 */
export function noteRepositoryCopies(result: WalkResult, path: string, real: string, copies: string): void {
  result.diagnostics.push(
    diagnostic(
      "repository-copies",
      "warning",
      path,
      `${path === real ? "is" : "leads to"} ${real}, in SkillHub's repository copies (${copies}); not scanned: a copy is served only as its repository (\`skillhub add URL\`, SKILLS_REPO or git.repos), whose copy is checked first.`,
    ),
  );
}
