import { lstatSync, mkdtempSync, rmSync, type Stats, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readNamedFile } from "../../util/named-file.ts";
import { OWN_FILE_MODE } from "../../util/own-file.ts";
import { sha256Hex } from "../../util/sha256.ts";

/**
 * The allowed-signers file (trust.allowed_signers) as a verification uses it: read once, by the bounded
 * reader, from a place only its owner can change, and handed to `ssh-keygen` as a private copy of the
 * very bytes read.
 *
 * Security: whoever can write the file decides which keys sign a team's skills. A file, or a folder
 * above it, that another user can write (a shared folder, a group's) lets that user add a key, as a
 * link they own in front of it lets them point it elsewhere: such a file is refused, as `ssh` refuses
 * an `authorized_keys` others can write. A group-writable one passes only when the group is the user's
 * own private group. And `git verify-commit` names the file to `ssh-keygen`, which
 * opens it again: a file swapped between the check and that open (or a FIFO put there) would be read
 * instead, so ssh-keygen is given a copy in a folder of SkillHub's own.
 */

/** Largest allowed-signers file accepted (a team's keys fit in a few kilobytes). */
export const MAX_SIGNERS_BYTES = 1_048_576;

export type SignersRead = { ok: true; bytes: Buffer; digest: string } | { ok: false; missing: boolean; reason: string };

/** The signers file at `path`, checked (see above); `digest` (sha256, hex) tells one content from another. */
export function readSigners(path: string): SignersRead {
  const read = readNamedFile({ path, maxBytes: MAX_SIGNERS_BYTES });
  if (!read.ok) return { ok: false, missing: read.missing, reason: read.reason.replace(/\.$/, "") };
  const writable = othersCanChange(resolve(path), read.real, read.ino);
  if (writable)
    return {
      ok: false,
      missing: false,
      reason: `'${path}' could be changed by other users (${writable}), so the keys it lists cannot be trusted; make it and the folders above it yours (or root's) and writable by you alone (chown, chmod go-w)`,
    };
  return { ok: true, bytes: read.bytes, digest: sha256Hex(read.bytes) };
}

/**
 * Run `use` with the path of a private copy of `bytes` (a folder of its own, readable by this user
 * alone), removed afterwards.
 */
export async function withSignersCopy<T>(bytes: Buffer, use: (file: string) => Promise<T>): Promise<T> {
  // node:os when a verification runs, not at start-up.
  const folder = mkdtempSync(join((require("node:os") as typeof import("node:os")).tmpdir(), "skillhub-signers-"));
  try {
    const file = join(folder, "allowed_signers");
    writeFileSync(file, bytes, { mode: OWN_FILE_MODE });
    return await use(file);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Whether group `gid` is a user private group, the owner alone: named as the user, with no other member
 * listed in /etc/group and no other user's primary group in /etc/passwd. Systems that give each user such
 * a group set umask 002, so a user's files are group-writable; a group shared with others (macOS `staff`,
 * `users`) is not the owner alone, and one these files do not describe (a directory service) is not
 * taken for private. Pure.
 */
export function isPrivateGroup(gid: number, user: string, groupFile: string, passwdFile: string): boolean {
  const fields = (line: string) => line.split(":");
  // Every line of that id: a second name for the group may list other members.
  const groups = groupFile
    .split("\n")
    .map(fields)
    .filter((f) => f.length >= 4 && Number(f[2]) === gid && f[2] !== "");
  const alone = (group: string[]) =>
    group[0] === user && !(group[3] ?? "").split(",").some((m) => m.trim() !== "" && m.trim() !== user);
  if (groups.length === 0 || !groups.every(alone)) return false;
  return !passwdFile
    .split("\n")
    .map(fields)
    .some((f) => f.length >= 4 && f[0] !== user && f[3] !== "" && Number(f[3]) === gid);
}

function readSystemFile(path: string): string {
  const read = readNamedFile({ path, maxBytes: 16_777_216 });
  return read.ok ? read.bytes.toString("utf8") : "";
}

/**
 * What lets another user change the file whose real path is `real` (inode `ino`), named `given`: the
 * file, a folder above it, or a link on the way owned by someone else or writable by others; undefined
 * when only this user (or root) can. Where there are no user ids (Windows) nothing is checked.
 */
export function othersCanChange(given: string, real: string, ino: number): string | undefined {
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  if (uid === undefined || gid === undefined) return undefined;
  const problem = (what: string, stat: Stats, folder: boolean): string | undefined => {
    if (stat.uid !== uid && stat.uid !== 0) return `${what} is owned by user ${stat.uid}`;
    // Security: a sticky folder (/tmp) lets others add entries but not replace or remove ours.
    if (folder && (stat.mode & 0o1000) !== 0) return undefined;
    if ((stat.mode & 0o002) !== 0) return `${what} is writable by every user`;
    if ((stat.mode & 0o020) !== 0 && !(stat.gid === gid && ownGroup()))
      return `${what} is writable by group ${stat.gid}`;
    return undefined;
  };
  let own: boolean | undefined;
  const ownGroup = () => {
    if (own === undefined) {
      const passwd = readSystemFile("/etc/passwd");
      const entry = passwd.split("\n").find((line) => line.split(":")[2] === String(uid));
      own = isPrivateGroup(gid, entry?.split(":")[0] ?? "", readSystemFile("/etc/group"), passwd);
    }
    return own;
  };
  try {
    const file = statSync(real);
    if (file.ino !== ino) return `${real} was replaced while it was read`;
    const own = problem(real, file, false);
    if (own) return own;
    for (let folder = dirname(real); ; folder = dirname(folder)) {
      const found = problem(folder, lstatSync(folder), true);
      if (found) return found;
      if (dirname(folder) === folder) break;
    }
    // The name given may be a link (or lie under one): whoever owns a link decides where it leads.
    for (let at = given; dirname(at) !== at; at = dirname(at)) {
      const stat = lstatSync(at);
      if (!stat.isSymbolicLink()) continue;
      // A link's own mode means nothing; its owner is who can point it elsewhere.
      if (stat.uid !== uid && stat.uid !== 0) return `the link ${at} is owned by user ${stat.uid}`;
      const parent = problem(dirname(at), statSync(dirname(at)), true);
      if (parent) return parent;
    }
    return undefined;
  } catch (error) {
    return `it cannot be checked: ${(error as Error).message}`;
  }
}
