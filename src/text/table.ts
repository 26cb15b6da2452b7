/**
 * The layout of every table pms prints: padded columns two spaces apart, no borders. Like the other
 * modules of src/text it imports nothing of pms; fitting a table to a width (what to cut, what to
 * leave out) is its printer's choice, made before the cells come here.
 */

/** The gap between two columns. */
export const GAP = '  '

export interface Layout {
  /** Each column's width; a cell is padded to it, never cut. */
  widths: readonly number[]
  /** Columns whose cells are right-aligned (numbers are right-aligned in any column). */
  right?: readonly boolean[]
  /** Columns shown; those left out take no room. All by default. */
  shown?: readonly boolean[]
}

/** Rows of cells as lines of text, without trailing spaces. */
export function layOut(rows: readonly (readonly (string | number)[])[], layout: Layout): string[] {
  return rows.map((cells) =>
    cells
      .flatMap((cell, i) => {
        if (layout.shown?.[i] === false) return []
        const width = layout.widths[i]!
        return [typeof cell === 'number' || layout.right?.[i] ? String(cell).padStart(width) : cell.padEnd(width)]
      })
      .join(GAP)
      .trimEnd(),
  )
}

/** The width of each column: its widest cell. */
export function naturalWidths(rows: readonly (readonly (string | number)[])[]): number[] {
  const widths: number[] = []
  for (const cells of rows) cells.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, String(cell).length)))
  return widths
}

/** How wide a table of these widths is. */
export function tableWidth(widths: readonly number[]): number {
  return widths.reduce((sum, width) => sum + width, 0) + GAP.length * (widths.length - 1)
}
