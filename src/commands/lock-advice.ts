/**
 * What to do about differences from skillhub.lock: accept them, or put back what the lock records. `verify`
 * ends with ACCEPT_OR_RESTORE when no repository's state explains them; `sync --frozen`, which has just put
 * every repository back at its locked commit, with ACCEPT_OR_RESTORE_FILES.
 */
const REVIEW_THEN_LOCK = "Review them, then run `skillhub lock` to accept them, or restore what the lock records";
const RESTORE_FILES = "restore a folder's files from version control";

export const ACCEPT_OR_RESTORE = `${REVIEW_THEN_LOCK}: \`skillhub sync --frozen\` puts every repository back at its locked commit (a plain \`skillhub sync\` moves the unpinned ones to their branch tip and writes that to the lock); ${RESTORE_FILES}.`;

export const ACCEPT_OR_RESTORE_FILES = `${REVIEW_THEN_LOCK}: ${RESTORE_FILES}.`;
