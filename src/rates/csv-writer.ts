/** RFC 4180 output: a heading line, fields quoted only when they need it, CRLF like spreadsheets write. */
export function csvField(text: string): string {
  return /[",;\t\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function toCsvText<R extends object>(columns: readonly (keyof R & string)[], rows: Iterable<R>): string {
  const lines = [columns.join(',')]
  for (const row of rows) lines.push(columns.map((c) => csvField(String(row[c] ?? ''))).join(','))
  return lines.join('\r\n') + '\r\n'
}
