import { TermList } from "../util/term-list.ts";
import { FieldPostings } from "./field-postings.ts";
import type { LiveSlots } from "./freeze.ts";
import type { IndexParts } from "./fulltext.ts";
import { SlotStrings } from "./slot-strings.ts";

/**
 * The persisted index in binary (the JSON form took 0.7-1.1 s and +143 MB to load at
 * 10,000 skills). Layout, little-endian:
 *
 *   "SKILLHUB-INDEX\n"   magic (15 bytes)
 *   u32                  header length H
 *   H bytes              header: a small JSON object (format, schema, fingerprint, sections)
 *   sections             each at an offset that is a multiple of 8 from the file's start
 *
 * Postings (16- or 32-bit slots, 8-bit frequencies), lengths and offsets are typed arrays read back as views of the file's bytes; strings
 * (ids, hashes, vocabularies) are one UTF-8 block per list plus a Uint32Array of UTF-16 lengths,
 * so a load decodes each block once and keeps it whole (slot-strings.ts, term-list.ts). No JSON bigger
 * than the header is parsed.
 */

const MAGIC = "SKILLHUB-INDEX\n";

export interface IndexHeader {
  schema: number;
  /** catalogFingerprint() of the catalog the index was built from. */
  fingerprint: string;
  savedAt: string;
}

interface Section {
  name: string;
  kind: "u32" | "u16" | "u8" | "utf8";
  offset: number;
  bytes: number;
}

interface StoredHeader extends IndexHeader {
  slots: number;
  fields: string[];
  sections: Section[];
}

/** Thrown for a file that is not a whole, consistent index of this format. */
export class IndexFileError extends Error {
  readonly code = "INDEX_CORRUPT";
}

/** Strings encoded per piece: one piece is a few milliseconds of work, between two pauses. */
const STRINGS_PER_PIECE = 16_384;

/** The file's pieces, in order, at once (shutdown, tests). */
export function encodeIndexFile(header: IndexHeader, parts: IndexParts): Uint8Array[] {
  const steps = encodeSteps(header, parts);
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/**
 * The file's pieces, awaiting `pause` between pieces of work, so that saving a large index never
 * holds the event loop for long (encoding 150,000 terms at once took 56 ms).
 */
export async function encodeIndexFileAsync(
  header: IndexHeader,
  parts: IndexParts,
  pause: () => Promise<void>,
): Promise<Uint8Array[]> {
  const steps = encodeSteps(header, parts);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await pause();
  }
}

/** The encoding, yielding where a pause may go; returns the pieces (written as one Blob: no copy into one buffer). */
function* encodeSteps(header: IndexHeader, parts: IndexParts): Generator<void, Uint8Array[]> {
  const sections: Section[] = [];
  const blocks: Uint8Array[] = [];
  let offset = 0;
  const put = (name: string, kind: Section["kind"], data: readonly Uint8Array[]) => {
    let bytes = 0;
    for (const d of data) {
      blocks.push(d);
      bytes += d.byteLength;
    }
    sections.push({ name, kind, offset, bytes });
    offset += bytes;
    const pad = (8 - (offset % 8)) % 8;
    if (pad > 0) {
      blocks.push(new Uint8Array(pad));
      offset += pad;
    }
  };
  const view = (a: Uint32Array | Uint16Array | Uint8Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const encoder = new TextEncoder();
  function* strings(name: string, list: SlotStrings): Generator<void> {
    const lengths = new Uint32Array(list.length);
    const text: Uint8Array[] = [];
    for (let from = 0; from < list.length; from += STRINGS_PER_PIECE) {
      // A freed slot's string is saved empty.
      text.push(encoder.encode(list.joined(from, Math.min(list.length, from + STRINGS_PER_PIECE), lengths)));
      yield;
    }
    put(`${name}.lengths`, "u32", [view(lengths)]);
    put(`${name}.text`, "utf8", text);
  }
  // Taken now, before any pause: frozen arrays are replaced, never changed, by later updates; lengths are copied.
  const fields = [...parts.fields].map(([field, store]) => {
    const frozen = store.frozen(parts.ids.length);
    return { field, frozen: { ...frozen, lengths: frozen.lengths.slice() } };
  });
  yield* strings("ids", parts.ids);
  yield* strings("hashes", parts.hashes);
  for (const { field, frozen } of fields) {
    const { vocabulary } = frozen;
    put(`${field}.vocabulary.lengths`, "u32", [view(vocabulary.lengths())]);
    put(`${field}.vocabulary.text`, "utf8", [encoder.encode(vocabulary.text)]);
    yield;
    put(`${field}.offsets`, "u32", [view(frozen.offsets)]);
    put(`${field}.docs`, frozen.docs instanceof Uint16Array ? "u16" : "u32", [view(frozen.docs)]);
    put(`${field}.tfs`, "u8", [view(frozen.tfs)]);
    put(`${field}.lengths`, "u32", [view(frozen.lengths)]);
  }
  const stored: StoredHeader = { ...header, slots: parts.ids.length, fields: [...parts.fields.keys()], sections };
  const head = encoder.encode(JSON.stringify(stored));
  // Sections are aligned from the end of the header block, padded so that they start at a multiple of 8.
  const prefix = MAGIC.length + 4 + head.byteLength;
  const lead = new Uint8Array(prefix + ((8 - (prefix % 8)) % 8));
  lead.set(encoder.encode(MAGIC), 0);
  new DataView(lead.buffer).setUint32(MAGIC.length, head.byteLength, true);
  lead.set(head, MAGIC.length + 4);
  return [lead, ...blocks];
}

/** Just the header (format and schema checks before the rest is decoded). */
export function readIndexHeader(bytes: Uint8Array): IndexHeader & { base: number } {
  if (bytes.byteLength < MAGIC.length + 4 || new TextDecoder().decode(bytes.subarray(0, MAGIC.length)) !== MAGIC)
    throw new IndexFileError("not a SkillHub search index");
  const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(MAGIC.length, true);
  const end = MAGIC.length + 4 + length;
  if (end > bytes.byteLength) throw new IndexFileError("truncated header");
  let header: StoredHeader;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(MAGIC.length + 4, end)));
  } catch (error) {
    throw new IndexFileError(`unreadable header (${(error as Error).message})`);
  }
  if (typeof header?.schema !== "number" || typeof header.fingerprint !== "string")
    throw new IndexFileError("incomplete header");
  return {
    schema: header.schema,
    fingerprint: header.fingerprint,
    savedAt: header.savedAt,
    base: end + ((8 - (end % 8)) % 8),
  };
}

/** The index parts of a whole file; throws IndexFileError when anything does not add up. */
export function decodeIndexFile(input: Uint8Array): IndexParts {
  const steps = decodeSteps(input);
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/**
 * decodeIndexFile, awaiting `pause` between fields: decoding 18 MB (10,000 skills) at once held the
 * event loop about 30 ms, on top of whatever else the end of a first build does.
 */
export async function decodeIndexFileAsync(input: Uint8Array, pause: () => Promise<void>): Promise<IndexParts> {
  const steps = decodeSteps(input);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await pause();
  }
}

/** The decoding, yielding between fields. */
function* decodeSteps(input: Uint8Array): Generator<void, IndexParts> {
  // Typed-array views need aligned offsets: copy a buffer that does not start on one.
  const bytes = input.byteOffset % 8 === 0 ? input : new Uint8Array(input);
  const { base } = readIndexHeader(bytes);
  const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(MAGIC.length, true);
  const header = JSON.parse(
    new TextDecoder().decode(bytes.subarray(MAGIC.length + 4, MAGIC.length + 4 + length)),
  ) as StoredHeader;
  if (!Array.isArray(header.sections) || !Array.isArray(header.fields) || !Number.isInteger(header.slots))
    throw new IndexFileError("incomplete header");
  const byName = new Map(header.sections.map((s) => [s.name, s]));
  const section = (name: string, kind: Section["kind"]): Uint8Array => {
    const s = byName.get(name);
    if (!s || s.kind !== kind || !Number.isInteger(s.offset) || !Number.isInteger(s.bytes) || s.offset % 8 !== 0)
      throw new IndexFileError(`section ${name} is missing`);
    const start = base + s.offset;
    if (s.offset < 0 || s.bytes < 0 || start + s.bytes > bytes.byteLength)
      throw new IndexFileError(`section ${name} is truncated`);
    return bytes.subarray(start, start + s.bytes);
  };
  const u32 = (name: string) => {
    const b = section(name, "u32");
    if (b.byteLength % 4 !== 0) throw new IndexFileError(`section ${name} is truncated`);
    return new Uint32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  };
  const u16 = (name: string) => {
    const b = section(name, "u16");
    if (b.byteLength % 2 !== 0) throw new IndexFileError(`section ${name} is truncated`);
    return new Uint16Array(b.buffer, b.byteOffset, b.byteLength / 2);
  };
  // Postings' slots: 16 bits up to 65,536 document slots, else 32 (freeze.ts slotArray).
  const slots = (name: string) => (byName.get(name)?.kind === "u16" ? u16(name) : u32(name));
  const text = (name: string): string => {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(section(`${name}.text`, "utf8"));
    } catch (error) {
      if (error instanceof IndexFileError) throw error;
      throw new IndexFileError(`section ${name} is not UTF-8`);
    }
  };
  const terms = (name: string): TermList => {
    const lengths = u32(`${name}.lengths`);
    const all = text(name);
    try {
      return TermList.fromLengths(all, lengths);
    } catch {
      throw new IndexFileError(`section ${name} does not add up`);
    }
  };
  // Slot strings are packed as they are read (no string per slot); an empty id is a freed slot.
  const strings = (name: string, live?: LiveSlots): SlotStrings => {
    const lengths = u32(`${name}.lengths`);
    const all = text(name);
    try {
      return SlotStrings.fromLengths(all, lengths, live);
    } catch {
      throw new IndexFileError(`section ${name} does not add up`);
    }
  };
  const ids = strings("ids");
  const hashes = strings("hashes", ids);
  if (ids.length !== header.slots || hashes.length !== header.slots) throw new IndexFileError("document count differs");
  const fields = new Map<string, FieldPostings>();
  for (const field of header.fields) {
    yield;
    try {
      fields.set(
        field,
        FieldPostings.fromFrozen(
          {
            vocabulary: terms(`${field}.vocabulary`),
            offsets: u32(`${field}.offsets`),
            docs: slots(`${field}.docs`),
            tfs: section(`${field}.tfs`, "u8"),
            lengths: u32(`${field}.lengths`),
          },
          ids,
        ),
      );
    } catch (error) {
      if (error instanceof IndexFileError) throw error;
      throw new IndexFileError(`field ${field}: ${(error as Error).message}`);
    }
  }
  return { ids, hashes, fields };
}
