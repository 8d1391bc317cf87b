/** `n word` or `n words`: counts in sentences a user reads. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
