/**
 * Rows of cells as aligned lines, cells two spaces apart. Each cell but a row's last is padded to the
 * longest such cell of its column, at most `max` characters (default: no limit; a longer cell is kept
 * whole and pushes the rest of its row). A row's last cell (a description, a path) sizes nothing.
 */
export function alignColumns(rows: readonly (readonly string[])[], max = Number.POSITIVE_INFINITY): string[] {
  const widths: number[] = [];
  for (const row of rows)
    for (const [i, cell] of row.slice(0, -1).entries())
      widths[i] = Math.min(max, Math.max(widths[i] ?? 0, cell.length));
  return rows.map((row) => row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i] ?? 0) : cell)).join("  "));
}
