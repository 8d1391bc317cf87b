import { closeSync, constants, fstatSync, openSync } from "node:fs";

/** Permission bits of a file SkillHub saves for itself: the user's own, nobody else's to read or write. */
export const OWN_FILE_MODE = 0o600;

/**
 * A descriptor on `path` when it is a file this user could have written: a regular file (not a link, a
 * FIFO or a device: opened without following or blocking), owned by this user, writable by nobody else.
 * Security: for what SkillHub saves for itself in a cache folder that may be shared (DB_PATH): a FIFO
 * planted there would hold its reader on the open, and another user's file would be taken for this
 * user's. Throws, saying why (the open's own error, ENOENT for none).
 */
export function openOwnFile(path: string): number {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error("not a regular file");
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) throw new Error(`owned by user ${stat.uid}, not this one (${uid})`);
    if (uid !== undefined && (stat.mode & 0o022) !== 0)
      throw new Error(`writable by other users (mode ${(stat.mode & 0o777).toString(8)})`);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}
