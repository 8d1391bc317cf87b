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

/** MIME types of skill files by extension (`resources/read`, binary answers); anything else is application/octet-stream. */
export const MIME_TYPES: Readonly<Record<string, string>> = {
  ".md": "text/markdown",
  ".markdown": "text/markdown",
  ".txt": "text/plain",
  ".json": "application/json",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".toml": "application/toml",
  ".py": "text/x-python",
  ".sh": "text/x-shellscript",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".ts": "text/x-typescript",
  ".html": "text/html",
  ".css": "text/css",
  ".csv": "text/csv",
  ".xml": "application/xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
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

/** MIME type of a file, by its extension (case-insensitive). */
export function mimeTypeFor(file: string): string {
  return MIME_TYPES[extname(file).toLowerCase()] ?? DEFAULT_MIME_TYPE;
}

/** MIME type of a file served as binary: a text type only names text, so bytes in a `.txt` are octet-stream. */
export function binaryMimeType(file: string): string {
  return isBinaryExtension(file) ? mimeTypeFor(file) : DEFAULT_MIME_TYPE;
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

/**
 * The images a model can be shown, by MIME type, each with a test of its signature (the first bytes). Not
 * SVG: it is text, which a model reads as such, and the Messages API and most clients take none.
 */
const VIEWABLE_IMAGES: Readonly<Record<string, (bytes: Uint8Array) => boolean>> = {
  "image/png": (bytes) => startsWith(bytes, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  "image/jpeg": (bytes) => startsWith(bytes, 0, [0xff, 0xd8, 0xff]),
  "image/gif": (bytes) => startsWith(bytes, 0, ascii("GIF87a")) || startsWith(bytes, 0, ascii("GIF89a")),
  "image/webp": (bytes) => startsWith(bytes, 0, ascii("RIFF")) && startsWith(bytes, 8, ascii("WEBP")),
};

/**
 * Whether a file can go to a client as an image a model views (PNG, JPEG, GIF, WebP): its extension names
 * the type (mimeTypeFor), its bytes begin as that type does, and it is at most MAX_VIEWABLE_IMAGE_BYTES. A
 * file misnamed either way (a PNG called .txt, text called .png) is not one: a model's API refuses an image
 * whose bytes are not what it says, or that is too large.
 */
export function isViewableImage(file: string, bytes: Uint8Array): boolean {
  return bytes.length <= MAX_VIEWABLE_IMAGE_BYTES && (VIEWABLE_IMAGES[mimeTypeFor(file)]?.(bytes) ?? false);
}

/**
 * Largest image sent to a client as an image, in bytes: 3.75 MiB, whose base64 is 5 MiB, the most the
 * Messages API takes for one image. A larger one would fail every later turn of a client that passes images
 * on as they are (Claude Code shrinks them itself).
 */
export const MAX_VIEWABLE_IMAGE_BYTES = 3_932_160;

/** Whether a file's name is that of an image a model can view (PNG, JPEG, GIF, WebP); its bytes are not checked. */
export function namesViewableImage(file: string): boolean {
  return mimeTypeFor(file) in VIEWABLE_IMAGES;
}

function startsWith(bytes: Uint8Array, at: number, signature: readonly number[]): boolean {
  return bytes.length >= at + signature.length && signature.every((byte, i) => bytes[at + i] === byte);
}

function ascii(text: string): number[] {
  return [...text].map((char) => char.charCodeAt(0));
}
