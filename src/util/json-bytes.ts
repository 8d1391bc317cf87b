/**
 * The bytes `value` takes as JSON text in UTF-8, counted without building the text: what an answer
 * holding it costs to send. A string counts its escapes (a control character is six bytes, `\u0001`); a
 * Uint8Array counts as the base64 string it is sent as. Exact for strings, arrays and plain objects of
 * them; numbers are counted as JavaScript writes them. Pure.
 */
export function jsonBytes(value: unknown): number {
  if (typeof value === "string") return stringBytes(value);
  if (value instanceof Uint8Array) return base64JsonBytes(value.byteLength);
  if (Array.isArray(value))
    return Math.max(
      2,
      value.reduce((n: number, item) => n + (item === undefined ? 4 : jsonBytes(item)) + 1, 1),
    );
  if (typeof value === "object" && value !== null) {
    let n = 1;
    for (const [key, item] of Object.entries(value))
      if (item !== undefined && typeof item !== "function") n += stringBytes(key) + jsonBytes(item) + 2;
    return Math.max(2, n);
  }
  return String(value).length;
}

/** The bytes `byteLength` bytes take as a base64 string in JSON, its quotes included. */
export function base64JsonBytes(byteLength: number): number {
  return 4 * Math.ceil(byteLength / 3) + 2;
}

/**
 * The bytes JSON's escapes add to UTF-8 text, counted on its bytes (a chunk of a file as it is read): its
 * escaped characters are all ASCII, one byte each, which no byte of another character can be. Pure.
 */
export function escapeBytes(bytes: Uint8Array): number {
  let escapes = 0;
  for (let i = 0; i < bytes.length; i++) escapes += escapeOf(bytes[i] ?? 0);
  return escapes;
}

/** A string as JSON: its UTF-8 bytes, its escapes and its quotes. */
function stringBytes(text: string): number {
  let escapes = 0;
  for (let i = 0; i < text.length; i++) escapes += escapeOf(text.charCodeAt(i));
  return Buffer.byteLength(text, "utf8") + escapes + 2;
}

/** The bytes JSON adds to write character code `c`: \b \t \n \f \r take two, other controls six, " and \ two. */
function escapeOf(c: number): number {
  if (c < 0x20) return c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : 5;
  return c === 0x22 || c === 0x5c ? 1 : 0;
}
