/**
 * Words as the shell a user pastes them into reads them back: plain ones as they are, others in single
 * quotes. POSIX shells end a quote at `'` (written `'\''`); PowerShell, Windows' own, reads `''` (and
 * counts the typographic single quotes as `'`), takes `,` for an array and `@` for splatting, reads
 * `\` as any character, and drops a bare `--` before a script's arguments (npm's `claude.ps1`).
 */
export function shellWords(words: readonly string[], platform: NodeJS.Platform = process.platform): string {
  if (platform === "win32")
    return words
      .map((w) => (w !== "--" && /^[\w%+=:./\\-]+$/.test(w) ? w : `'${w.replace(/['\u2018-\u201b]/g, "$&$&")}'`))
      .join(" ");
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`)).join(" ");
}
