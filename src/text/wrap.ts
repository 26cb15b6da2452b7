/**
 * Text broken into lines no wider than a terminal, at spaces. Like src/text/words.ts it imports
 * nothing of pms. Colour and cursor codes take no room on a screen, so they are not counted.
 */

// eslint-disable-next-line no-control-regex
const CODES = /\u001b\[[0-9;?]*[A-Za-z]|\r/g

function visible(text: string): number {
  return text.replace(CODES, '').length
}

/**
 * One line wrapped at `width`, every row after `indent` (a hanging indent); whole without a width.
 * A word longer than a row is cut where the row ends.
 */
export function wrapLine(line: string, indent: string, width: number | undefined): string[] {
  if (width === undefined || indent.length + visible(line) <= width) return [indent + line]
  const room = Math.max(20, width - indent.length)
  const rows: string[] = []
  let row = ''
  for (let word of line.split(' ')) {
    while (visible(word) > room) {
      if (row) rows.push(row)
      rows.push(word.slice(0, room))
      word = word.slice(room)
      row = ''
    }
    if (row && visible(row) + 1 + visible(word) > room) {
      rows.push(row)
      row = word
    } else row = row ? `${row} ${word}` : word
  }
  if (row || rows.length === 0) rows.push(row)
  return rows.map((r) => indent + r)
}

/**
 * Every line of `text` that is wider than `width` wrapped under its own leading spaces, so that a
 * terminal shows no line wider than itself; the text as it is without a width.
 */
export function wrapText(text: string, width: number | undefined): string {
  if (width === undefined) return text
  return text
    .split('\n')
    .flatMap((line) => {
      const indent = /^ */.exec(line)![0]
      return wrapLine(line.slice(indent.length), indent, width)
    })
    .join('\n')
}

/**
 * Text such as help, whose example lines (`  $ pms ...`) are commands: those wrap at spaces with a
 * ` \` at the end of each row but the last, so that the rows pasted into a shell are still one
 * command; every other line wraps as wrapText wraps it.
 */
export function wrapWithCommands(text: string, width: number | undefined): string {
  if (width === undefined) return text
  return text
    .split('\n')
    .flatMap((line) => {
      const indent = /^ */.exec(line)![0]
      const body = line.slice(indent.length)
      if (!body.startsWith('$ ') || indent.length + visible(body) <= width) return wrapLine(body, indent, width)
      // Two characters for ` \`, and rows after the first indented four more, as a continuation.
      const rows = wrapLine(body, '', width - indent.length - 6)
      return rows.map((row, i) => (i === 0 ? indent : `${indent}    `) + row + (i < rows.length - 1 ? ' \\' : ''))
    })
    .join('\n')
}
