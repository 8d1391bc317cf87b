/**
 * What tells one state of a folder or file from another by stat: its mtime, and its inode and ctime,
 * since one put in another's place (renamed over it, a link retargeted, unpacked from the same archive,
 * made in the same clock tick) can carry the same mtime and size, and the system sets ctime, which no
 * one can.
 */
export interface Stamp {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/** A file's stamp and size. */
export interface FileStamp extends Stamp {
  size: number;
}

/** Whether two stamps are of the same state. */
export const sameStamp = (a: Stamp, b: Stamp): boolean =>
  a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;

/** Whether two file stamps are of the same content. */
export const sameFile = (a: FileStamp, b: FileStamp): boolean => a.size === b.size && sameStamp(a, b);

/** The stamp alone of a stat (or of anything that carries one), not the rest of the object. */
export const fileStamp = ({ size, mtimeMs, ctimeMs, ino }: FileStamp): FileStamp => ({ size, mtimeMs, ctimeMs, ino });
