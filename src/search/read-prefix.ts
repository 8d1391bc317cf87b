import { closeSync, openSync, readSync } from "node:fs";

/**
 * The first `maxBytes` of a file as UTF-8: indexing needs the frontmatter and
 * a few thousand body characters, and reading a multi-megabyte SKILL.md whole
 * to keep 3,000 characters was where the index build's memory peak came from
 * (issue 16). A character cut at the boundary decodes as U+FFFD and is harmless.
 */
let shared = Buffer.alloc(0);

export function readPrefix(file: string, maxBytes: number): string {
  const fd = openSync(file, "r");
  try {
    // One buffer for every read: 10,000 fresh 64 KiB buffers were 640 MB of garbage per build.
    if (shared.length < maxBytes) shared = Buffer.allocUnsafe(maxBytes);
    const buffer = shared;
    let filled = 0;
    while (filled < maxBytes) {
      const n = readSync(fd, buffer, filled, maxBytes - filled, null);
      if (n === 0) break;
      filled += n;
    }
    return buffer.toString("utf8", 0, filled);
  } finally {
    closeSync(fd);
  }
}
