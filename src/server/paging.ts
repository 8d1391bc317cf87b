import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";

/**
 * Cursor pagination over a sorted list: the cursor names the last key of the
 * previous page, so a page boundary survives a catalog change (nothing is
 * skipped or repeated because an earlier entry came or went).
 */
export function paginate<T>(
  items: readonly T[],
  cursor: string | undefined,
  pageSize: number,
  key: (item: T) => string,
): { items: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    const after = decodeCursor(cursor);
    if (after === undefined)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        "Invalid cursor: pass back a nextCursor from this server.",
      );
    start = items.findIndex((item) => key(item) > after);
    if (start < 0) start = items.length;
  }
  const page = items.slice(start, start + pageSize);
  const last = page.at(-1);
  return start + pageSize < items.length && last !== undefined
    ? { items: page, nextCursor: Buffer.from(`after:${key(last)}`).toString("base64url") }
    : { items: page };
}

function decodeCursor(cursor: string): string | undefined {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  return text.startsWith("after:") ? text.slice(6) : undefined;
}
