import { extname } from "node:path";

/** Extensions served as base64. */
export const BINARY_EXTENSIONS: ReadonlySet<string> = new Set([
  ".png",
  ".jpg",
  ".jpeg",
  ".gif",
  ".svg",
  ".ico",
  ".webp",
  ".pdf",
  ".zip",
  ".woff",
  ".woff2",
]);

/** MIME types of binary files; anything else is application/octet-stream. */
export const MIME_TYPES: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".svg": "image/svg+xml",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
};

export const DEFAULT_MIME_TYPE = "application/octet-stream";

/** How many leading bytes are searched for a NUL. */
export const SNIFF_BYTES = 1024;

/** Whether the extension alone marks a file as binary (case-insensitive). */
export function isBinaryExtension(file: string): boolean {
  return BINARY_EXTENSIONS.has(extname(file).toLowerCase());
}

/** MIME type for a binary file, by extension. */
export function mimeTypeFor(file: string): string {
  return MIME_TYPES[extname(file).toLowerCase()] ?? DEFAULT_MIME_TYPE;
}

/** A NUL byte in the first KiB: not text, whatever the extension says. */
export function hasNulByte(bytes: Uint8Array, limit = SNIFF_BYTES): boolean {
  const end = Math.min(bytes.length, limit);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/** Binary by extension, or by content. */
export function isBinaryFile(file: string, bytes: Uint8Array): boolean {
  return isBinaryExtension(file) || hasNulByte(bytes);
}
