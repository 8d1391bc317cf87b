/**
 * Decoders for a file's own bytes served as text (read_skill_file, get_asset, resources/read): a leading
 * byte-order mark is kept, so the text is the file, its size and digest the file's, and a part's byte
 * offsets count every byte. Stateless between calls (no `stream`), so one instance serves every read.
 */
export const fileText = new TextDecoder("utf-8", { ignoreBOM: true });

/** As fileText, but throws on bytes that are not UTF-8 (then the file is served as bytes). */
export const strictFileText = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
