/**
 * What to do about differences from skillhub.lock: accept them, or put back what the lock records. `verify`
 * ends with it when no repository's state explains them, and `sync --frozen` when it finds them.
 */
export const ACCEPT_OR_RESTORE =
  "Review them, then run `skillhub lock` to accept them, or restore what the lock records: `skillhub sync --frozen` puts every repository back at its locked commit (a plain `skillhub sync` moves the unpinned ones to their branch tip and writes that to the lock); restore a folder's files from version control.";
