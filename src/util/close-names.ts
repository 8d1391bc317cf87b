/**
 * Longest typed name that gets close names (characters): a skill's name has at most 64, and a sentence
 * naming one ("the pdf-tools skill") fits. Security: what was typed is compared with every name, so a
 * megabyte sent as a skill's name held the server's thread for seconds on a large catalog.
 */
const MAX_TYPED_CHARS = 256;

/**
 * Close names for a misspelt one: edit distance, with a bonus for a shared
 * prefix or containment ("pdf" → "pdf-tools"). None for a name longer than MAX_TYPED_CHARS. Pure.
 */
export function closeNames(query: string, names: readonly string[], max = 5): string[] {
  const q = query.trim().toLowerCase();
  if (q === "" || q.length > MAX_TYPED_CHARS) return [];
  const scored: { name: string; score: number }[] = [];
  for (const name of names) {
    const n = name.toLowerCase();
    let score: number;
    if (n === q) score = 0;
    else if (n.includes(q) || q.includes(n)) score = 1 + Math.abs(n.length - q.length) / 100;
    else {
      const limit = Math.max(2, Math.floor(q.length / 3));
      const d = editDistance(q, n, limit);
      if (d > limit) continue;
      score = 2 + d;
    }
    scored.push({ name, score });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return scored.slice(0, max).map((s) => s.name);
}

/** Levenshtein distance, giving up (returning limit + 1) once it must exceed `limit`. */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] ?? limit + 1;
}

/**
 * The one word of `words` a mistyped command-line word (a command, an option, a client) most likely
 * meant, or undefined. Stricter than closeNames, whose containment bonus suits skill names: one or two
 * letters only start a word (`s` → serve); longer ones may be a prefix either way, one edit away or two
 * letters swapped (`lsit` → list), but never the same word with `no-` added or taken away (`--watch` is
 * not `--no-watch`). Ties go to the earlier word.
 */
export function closestWord(typed: string, words: readonly string[]): string | undefined {
  const t = typed.toLowerCase();
  const flips = (w: string) => w === `no-${t}` || t === `no-${w}`;
  let best: { word: string; d: number } | undefined;
  for (const word of words) {
    if (word === t || flips(word)) continue;
    const d =
      word.startsWith(t) || (t.length > 2 && t.startsWith(word))
        ? 0
        : t.length <= 2
          ? 2
          : swapped(t, word)
            ? 1
            : editDistance(t, word, 1);
    if (d <= 1 && (!best || d < best.d)) best = { word, d };
  }
  return best?.word;
}

/** `a` is `b` with two neighbouring letters swapped. */
function swapped(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}
