/**
 * Text cells a spreadsheet would evaluate: a cell that starts with `=`, `+`, `-`, `@`, a tab or a
 * CR is taken as a formula when the file is opened (OWASP, "CSV injection"), and guest names,
 * messages and Property names are typed by people pms does not vouch for. Such a cell is written
 * with a leading apostrophe, which spreadsheets show as text; pms reads it back without it.
 */

/** Any run of apostrophes before the first character that starts a formula. */
const STARTS_FORMULA = /^'*[=+\-@\t\r]/
/** A plain number stays a number: `-12.5` is a value, not a formula. */
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/

/**
 * The cell as written: one apostrophe more before text that would be evaluated. Text that already
 * starts with apostrophes before such a character gets one more too, so that `shownText` gives
 * back exactly what was written, whatever the text.
 */
export function formulaSafe(text: string): string {
  return STARTS_FORMULA.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text
}

/** The text of a cell `formulaSafe` wrote (any other cell as it is). */
export function shownText(cell: string): string {
  return cell.charCodeAt(0) === 39 && STARTS_FORMULA.test(cell.slice(1)) ? cell.slice(1) : cell
}
