/** Words as a POSIX shell reads them back: plain ones as they are, others in single quotes. */
export function shellWords(words: readonly string[]): string {
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`)).join(" ");
}
