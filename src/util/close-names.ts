/**
 * Close names for a misspelt one: edit distance, with a bonus for a shared
 * prefix or containment ("pdf" → "pdf-tools"). Pure.
 */
export function closeNames(query: string, names: readonly string[], max = 5): string[] {
  const q = query.trim().toLowerCase();
  if (q === "") return [];
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
