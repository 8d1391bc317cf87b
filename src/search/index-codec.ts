import MiniSearch, { type Options } from "minisearch";

/**
 * MiniSearch's own JSON form stores postings as objects keyed by document
 * number ({"9587": 1}). JavaScriptCore gives such objects indexed storage:
 * parsing a 1.8 MB index that way took over 100 MB. This form keeps the same
 * data in plain arrays, and is read back straight into MiniSearch's maps.
 *
 * It touches MiniSearch's internal fields (`_index`, `_documentIds`, ...),
 * which is why minisearch is pinned; the round-trip test in
 * test/search/index-codec.test.ts guards the version.
 */
export interface EncodedIndex {
  documentCount: number;
  nextId: number;
  dirtCount: number;
  fieldIds: Record<string, number>;
  averageFieldLength: number[];
  /** [shortId, id] */
  documentIds: [number, string][];
  /** [shortId, lengths per field] */
  fieldLength: [number, number[]][];
  /** [term, [fieldId, [shortId, frequency, shortId, frequency, ...]][]] */
  index: [string, [number, number[]][]][];
}

interface Internals {
  _documentCount: number;
  _nextId: number;
  _dirtCount: number;
  _fieldIds: Record<string, number>;
  _avgFieldLength: number[];
  _documentIds: Map<number, string>;
  _idToShortId: Map<string, number>;
  _fieldLength: Map<number, number[]>;
  _storedFields: Map<number, unknown>;
  _index: {
    set(term: string, value: Map<number, Map<number, number>>): void;
    [Symbol.iterator](): Iterator<[string, Map<number, Map<number, number>>]>;
  };
}

const internals = (mini: MiniSearch<unknown>) => mini as unknown as Internals;

export function encodeIndex(mini: MiniSearch<unknown>): EncodedIndex {
  const m = internals(mini);
  const index: EncodedIndex["index"] = [];
  for (const [term, fields] of m._index as unknown as Iterable<[string, Map<number, Map<number, number>>]>) {
    const entry: [number, number[]][] = [];
    for (const [fieldId, postings] of fields) {
      const flat: number[] = [];
      for (const [doc, freq] of postings) flat.push(doc, freq);
      entry.push([fieldId, flat]);
    }
    index.push([term, entry]);
  }
  return {
    documentCount: m._documentCount,
    nextId: m._nextId,
    dirtCount: m._dirtCount,
    fieldIds: m._fieldIds,
    averageFieldLength: m._avgFieldLength,
    documentIds: [...m._documentIds],
    fieldLength: [...m._fieldLength],
    index,
  };
}

/** Rebuild a MiniSearch from `encodeIndex`'s output, yielding now and then so requests are answered meanwhile. */
export async function decodeIndex<T>(
  data: EncodedIndex,
  options: Options<T>,
  tick: () => Promise<void>,
): Promise<MiniSearch<T>> {
  const mini = MiniSearch.loadJS<T>(
    {
      documentCount: data.documentCount,
      nextId: data.nextId,
      documentIds: {},
      fieldIds: data.fieldIds,
      fieldLength: {},
      averageFieldLength: data.averageFieldLength,
      storedFields: {},
      dirtCount: data.dirtCount,
      index: [],
      serializationVersion: 2,
    },
    options,
  );
  const m = internals(mini as MiniSearch<unknown>);
  m._documentIds = new Map(data.documentIds);
  m._idToShortId = new Map(data.documentIds.map(([shortId, id]) => [id, shortId]));
  m._fieldLength = new Map(data.fieldLength);
  m._storedFields = new Map();
  let n = 0;
  for (const [term, fields] of data.index) {
    const fieldMap = new Map<number, Map<number, number>>();
    for (const [fieldId, flat] of fields) {
      const postings = new Map<number, number>();
      for (let i = 0; i < flat.length; i += 2) postings.set(flat[i] as number, flat[i + 1] as number);
      fieldMap.set(fieldId, postings);
    }
    m._index.set(term, fieldMap);
    if (++n % 2000 === 0) await tick();
  }
  return mini;
}
