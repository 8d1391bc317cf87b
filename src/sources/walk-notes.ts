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

/** A file link of a confined source (a synced repository, a plugin) whose target is outside its folder: not read. */
export function noteLinkOutside(result: WalkResult, path: string, real: string, base: string): void {
  result.diagnostics.push(
    diagnostic(
      "symlink-outside",
      "warning",
      path,
      `links to ${real}, outside its source's folder ${base}; not read (synced repositories and plugins are confined to their folder).`,
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
