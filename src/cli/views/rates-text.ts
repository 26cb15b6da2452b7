/**
 * The rates feature's results drawn for a terminal: the dry-run diff, the plan summary, a batch's
 * outcome report, the calendar and the waiting line. Pure: colours come in as a function, so that
 * tests and pipes get plain text.
 */
import {wrapLine} from '../../text/wrap.js'
import {layOut, naturalWidths, tableWidth} from '../../text/table.js'
import type {BatchReport, PreviewProperty, PreviewRefusedField, RestrictionBatchPreview, RestrictionRecord} from '../../contract/index.js'
import {FIELDS, formatValue, reasonInWords} from '../../rates/fields.js'
import {formatDay} from '../../contract/days.js'
import {durationText, plural} from '../../text/words.js'
import {changeRuns, dayOf, type RunsByProperty} from '../../rates/diff.js'
import type {Names} from '../../rates/service.js'
import type {PlannedBatchSummary, BatchOutcome} from '../../rates/submit.js'
import type {Style} from '../output.js'

export type Paint = (style: Style, text: string) => string
export const plain: Paint = (_style, text) => text

/** `Sea View (1c979dcd…)` on a terminal, `Sea View (1c979dcd-...)` whole elsewhere. */
export function propertyLabel(names: Names, id: string): string {
  const name = names.get(id)
  const shown = names.idText?.(id) ?? id
  return name ? `${name} (${shown})` : shown
}

const FAILURES: Record<string, string> = {
  sales_channel_unavailable: 'the Sales Channels stayed unavailable through every retry',
}

export function failureInWords(code: string): string {
  return FAILURES[code] ?? code
}

/**
 * A report's table (src/text/table.ts lays it out): columns padded to their widest cell, numbers
 * right-aligned. With `fit`, the ids in it are shortened, then the first column (the labels) is
 * cut with `…` so that the table fits that many columns, down to 22 characters.
 */
export function textTable(headers: string[], rows: (string | number)[][], paint: Paint = plain, fit?: number): string {
  let widths = naturalWidths([headers, ...rows])
  if (fit !== undefined && tableWidth(widths) > fit) {
    // Ids give way first: `Name (1c979dcd…)` in labels, `1609eeb8…` in cells; `--json` has them whole.
    rows = rows.map((row) => row.map((cell) => (typeof cell === 'string' ? cell.replace(/\(([0-9a-f]{8})-[0-9a-f-]{27}\)$/, '($1…)').replace(/^([0-9a-f]{8})-[0-9a-f-]{27}$/, '$1…') : cell)))
    widths = naturalWidths([headers, ...rows])
  }
  if (fit !== undefined && tableWidth(widths) > fit && widths[0]! > 22) {
    widths[0] = Math.max(22, widths[0]! - (tableWidth(widths) - fit))
    rows = rows.map((row) => {
      const label = String(row[0] ?? '')
      if (label.length <= widths[0]!) return row
      // `Name (1c979dcd…)`: the name gives way, the short id stays.
      const id = / \([0-9a-f][0-9a-f-]{7,35}…?\)$/.exec(label)?.[0] ?? ''
      return [label.slice(0, widths[0]! - 1 - id.length) + '…' + id, ...row.slice(1)]
    })
  }
  const [heading, ...lines] = layOut([headers, ...rows], {widths})
  return [paint('bold', heading!), ...lines].join('\n') + '\n'
}

function runText(from: number, to: number): string {
  return formatRun(from, to)
}

/** `  2026-12-01..07          rate: <words>`: a run of dates, the field and what happened to it. */
function runLine(item: {from: string; to: string; field: string}, words: string, paint: Paint, colour: 'yellow' | 'red'): string {
  const from = dayOf(item.from)
  const to = dayOf(item.to)
  const when = Number.isNaN(from) || Number.isNaN(to) ? `${item.from}..${item.to}` : runText(from, to)
  const lead = `  ${when.padEnd(22)}  `
  return `${lead}${paint(colour, item.field)}: ${wrapLine(words, '', REPORT_WIDTH - lead.length - item.field.length - 2).join(`\n${' '.repeat(lead.length + 2)}`)}`
}

/** Refused fields per Property with their reason in words, in a dry run and in a report alike. */
function refusalSection(properties: readonly {property_id: string; refused_fields: readonly PreviewRefusedField[]}[], names: Names, paint: Paint): string[] {
  const refused = properties.filter((p) => p.refused_fields.length > 0)
  if (refused.length === 0) return []
  const out = ['', paint('bold', 'Refused (not written)')]
  for (const p of refused) {
    out.push(propertyLabel(names, p.property_id))
    for (const r of p.refused_fields) out.push(runLine(r, reasonInWords(r.reason), paint, 'yellow'))
  }
  return out
}

/** Summary rows shown one per Property before quiet ones are counted together. */
export const MAX_SUMMARY_ROWS = 20

/**
 * The dry-run diff: a summary per Property, the changes as runs of nights, then the refusals in
 * words. `noChanges`: say "Nothing to change" when nothing changes (a run that goes on to submit
 * says what it did instead). `width`: the terminal's columns, which the tables fit.
 */
export function renderPreview(preview: RestrictionBatchPreview, names: Names, paint: Paint = plain, folded?: RunsByProperty, noChanges = true, width?: number): string {
  const keys = ['submitted', 'changed', 'unchanged', 'refused'] as const
  const totals = {submitted: 0, changed: 0, unchanged: 0, refused: 0}
  const quiet = {submitted: 0, changed: 0, unchanged: 0, refused: 0}
  let quietCount = 0
  // Past a screenful, Properties where nothing changes and nothing is refused share one line, so
  // that the few that matter in a month of 1,000 Properties are not lost among the rest.
  const collapse = preview.properties.length > MAX_SUMMARY_ROWS
  const rows: (string | number)[][] = []
  for (const p of preview.properties) {
    for (const key of keys) totals[key] += p.changes[key]
    if (collapse && p.changes.changed === 0 && p.changes.refused === 0) {
      quietCount++
      for (const key of keys) quiet[key] += p.changes[key]
      continue
    }
    rows.push([propertyLabel(names, p.property_id), ...keys.map((key) => p.changes[key])])
  }
  const quietLabel = `${quietProperties(quietCount, rows.length > 0)}: nothing to change`
  if (quietCount > 0) rows.push([quietLabel, ...keys.map((key) => quiet[key])])
  if (preview.properties.length > 1) rows.push(['Total', ...keys.map((key) => totals[key])])
  const out: string[] = [textTable(['Property', 'values', 'changes', 'unchanged', 'refused'], rows, paint, width).trimEnd()]

  const runsOf = (p: PreviewProperty) =>
    folded ? [...(folded.get(p.property_id) ?? [])].sort((a, b) => a.from - b.from || FIELDS.indexOf(a.field as never) - FIELDS.indexOf(b.field as never)) : changeRuns(p.changed)
  const withChanges = preview.properties.filter((p) => (folded ? (folded.get(p.property_id)?.length ?? 0) > 0 : p.changed.length > 0))
  if (withChanges.length > 0) out.push('', paint('bold', 'Changes'))
  else if (noChanges) out.push('', 'Nothing to change: every submitted value equals the current one or is refused.')
  for (const property of withChanges) {
    out.push(propertyLabel(names, property.property_id))
    for (const run of runsOf(property)) {
      const from = formatValue(run.field, run.current)
      const to = formatValue(run.field, run.new)
      out.push(`  ${runText(run.from, run.to).padEnd(22)}  ${run.field} ${paint('red', from)} -> ${paint('green', to)}`)
    }
  }
  out.push(...refusalSection(preview.properties, names, paint))
  return out.join('\n') + '\n'
}

/**
 * A diff cut for a terminal: the summary's rows past MAX_SUMMARY_ROWS told as one line (its
 * heading and Total kept), then `maxLines` lines of changes and refusals and one more line saying
 * how many were left out and how to see them all. `cut` counts the lines of changes left out.
 */
export function capDiff(diff: string, maxLines: number | undefined, paint: Paint = plain): {text: string; cut: number} {
  const lines = diff.trimEnd().split('\n')
  const head = lines.indexOf('') + 1
  if (maxLines === undefined || head === 0) return {text: diff, cut: 0}
  const summary = lines.slice(0, head - 1)
  // Heading, rows, Total: rows past the limit become one line.
  const rows = summary.length - 2
  const summaryCut = rows > MAX_SUMMARY_ROWS ? rows - MAX_SUMMARY_ROWS : 0
  const shortSummary =
    summaryCut > 0 ? [...summary.slice(0, 1 + MAX_SUMMARY_ROWS), paint('dim', `... ${plural(summaryCut, 'more Property', 'more Properties')}`), summary.at(-1)!] : summary
  const rest = lines.slice(head)
  const cut = Math.max(0, rest.length - maxLines)
  if (cut === 0 && summaryCut === 0) return {text: diff, cut: 0}
  const kept = [...shortSummary, '', ...rest.slice(0, maxLines)]
  if (cut > 0) kept.push(paint('dim', `... ${cut} more ${cut === 1 ? 'line' : 'lines'}: \`--dry-run --json\` or \`--full-diff\` shows all`))
  return {text: kept.join('\n') + '\n', cut: cut + summaryCut}
}

/** The width the wrapped refusal reasons keep to. */
const REPORT_WIDTH = 80

export const REPORT_COUNTS = ['submitted', 'applied', 'unchanged', 'superseded', 'refused', 'failed', 'cancelled', 'pending'] as const

function statusPaint(status: string, paint: Paint): string {
  if (status === 'completed') return paint('green', status)
  if (status === 'partially_failed' || status === 'failed' || status === 'cancelled') return paint('red', status)
  return paint('yellow', status)
}

/**
 * The outcome report of a stored batch: counts per Property, refusals and failures as runs of dates.
 * `width`: the columns of the terminal it is shown on, which the Property labels are cut to fit;
 * undefined off a terminal, where nothing is cut.
 */
export function renderReport(report: BatchReport, names: Names, paint: Paint = plain, width?: number): string {
  const out: string[] = [`Batch ${report.id}: ${statusPaint(report.status, paint)}`]
  // The contract shows no report structure: without per-Property outcomes there is only the status.
  const properties = report.properties ?? []
  if (report.properties === undefined) {
    out.push('(the service sent no per-Property outcome with this status)')
    return out.join('\n') + '\n'
  }
  const count = (changes: Record<string, unknown>, key: string) => (typeof changes[key] === 'number' ? (changes[key] as number) : 0)
  // `pending` only says something while the batch is in flight; a final report is narrower without it.
  const inFlight = count((report.changes ?? {}) as Record<string, unknown>, 'pending') > 0 || properties.some((p) => count(p.changes as Record<string, unknown>, 'pending') > 0)
  // Counts that are 0 everywhere say nothing; without them the report fits 80 columns. `submitted`
  // and `applied` always show, so that a report of nothing applied says so.
  const anywhere = (key: string) => count((report.changes ?? {}) as Record<string, unknown>, key) > 0 || properties.some((p) => count(p.changes as Record<string, unknown>, key) > 0)
  const keys = REPORT_COUNTS.filter((key) => (key !== 'pending' || inFlight) && (key === 'submitted' || key === 'applied' || anywhere(key)))
  const countsOf = (p: {changes: unknown}) => keys.map((key) => count(p.changes as Record<string, unknown>, key))
  // As in the dry-run summary: past a screenful, Properties that completed with nothing refused,
  // failed or cancelled share one line, so the ones that need a look stand out.
  const collapse = properties.length > MAX_SUMMARY_ROWS
  const quietSums = keys.map(() => 0)
  let quietCount = 0
  const rows: (string | number)[][] = []
  for (const p of properties) {
    const counts = countsOf(p)
    const troubled = ['refused', 'failed', 'cancelled'].some((key) => counts[keys.indexOf(key as never)]! > 0)
    if (collapse && p.status === 'completed' && !troubled && p.refused_fields.length === 0 && p.failures.length === 0) {
      quietCount++
      counts.forEach((n, i) => (quietSums[i]! += n))
      continue
    }
    rows.push([propertyLabel(names, p.property_id), p.status, ...counts])
  }
  // "other" only when some Property is listed above the line.
  // Short, so that the label is not cut to fit: "no trouble" is nothing refused, failed or cancelled.
  const quietLabel = `${quietProperties(quietCount, rows.length > 0)}: no trouble`
  if (quietCount > 0) rows.push([quietLabel, 'completed', ...quietSums])
  if (properties.length > 1) {
    rows.push(['Total', report.status, ...keys.map((key) => count((report.changes ?? {}) as Record<string, unknown>, key))])
  }
  out.push(textTable(['Property', 'status', ...keys], rows, paint, width).trimEnd())
  out.push(...refusalSection(properties, names, paint))
  const failed = properties.filter((p) => p.failures.length > 0)
  if (failed.length > 0) {
    out.push('', paint('bold', 'Failed'))
    for (const p of failed) {
      out.push(propertyLabel(names, p.property_id))
      for (const f of p.failures) out.push(runLine(f, failureInWords(f.code), paint, 'red'))
    }
  }
  return out.join('\n') + '\n'
}

const OUTCOME_NOTES: Record<BatchOutcome, string> = {submitted: '', recovered: ' (recovered)'}

/**
 * The batches in numbers, one line each: `values` are the nightly values a batch sends, `changes`
 * (when dry runs told) those that change, the same number the question before submitting gives.
 */
export function renderPlanSummary(batches: readonly PlannedBatchSummary[], width?: number): string {
  const status = (b: PlannedBatchSummary) => `${b.status ?? ''}${OUTCOME_NOTES[b.outcome ?? 'submitted']}`
  const shown = batches.some((b) => b.outcome)
  const changed = batches.some((b) => b.changed !== undefined)
  const rows = batches.map((b) => [
    b.index + 1,
    b.properties,
    b.entries,
    b.changes,
    ...(changed ? [b.changed ?? '-'] : []),
    ...(shown ? [b.id ?? '-', status(b)] : []),
  ])
  const headers = ['batch', 'Properties', 'entries', 'values', ...(changed ? ['changes'] : []), ...(shown ? ['id', 'status'] : [])]
  return textTable(headers, rows, plain, width)
}

/** `3 Properties`, or `3 other Properties` when some are listed above the line. */
function quietProperties(count: number, others: boolean): string {
  return others ? plural(count, 'other Property', 'other Properties') : plural(count, 'Property', 'Properties')
}

/** Short form of a run of nights: `2026-12-01..07`, `2026-12-30..2027-01-02`, or one date. */
function formatRun(from: number, to: number): string {
  const a = formatDay(from)
  if (to === from) return a
  const b = formatDay(to)
  if (a.slice(0, 8) === b.slice(0, 8)) return `${a}..${b.slice(8)}`
  return `${a}..${b}`
}

/** What the waiting line knows of one batch. */
export interface FollowedBatch {
  id: string
  status?: string
  pending?: number
  submitted?: number
  /** Since when `pending` has not moved (clock ms). */
  stillSince?: number
}

/** A batch that makes no progress this long is waiting on the Sales Channels (outage handling: pause 60 s, then retries). */
export const STALL_MS = 60_000

/**
 * The one line `batches wait` and `rates import --wait` show while following batches: each batch's
 * status (counted by status past three), the changes pending and settled, the time waited, when the
 * next read is, and when nothing moves for a minute, that the Sales Channels hold it up.
 */
export function followLine(batches: readonly FollowedBatch[], now: number, started: number, nextReadAt?: number): string {
  const statuses =
    batches.length <= 3
      ? batches.map((b) => `${b.id.slice(0, 8)} ${b.status ?? 'reading'}`).join(', ')
      : [...batches.reduce((m, b) => m.set(b.status ?? 'reading', (m.get(b.status ?? 'reading') ?? 0) + 1), new Map<string, number>())]
          .map(([status, n]) => `${n} ${status}`)
          .join(', ')
  const pending = batches.reduce((sum, b) => sum + (b.pending ?? 0), 0)
  const submitted = batches.reduce((sum, b) => sum + (b.submitted ?? 0), 0)
  const parts = [statuses, `${pending} pending, ${submitted - pending} settled`, `waited ${durationText(now - started)}`]
  const stalled = batches.filter((b) => b.pending && b.stillSince !== undefined && now - b.stillSince >= STALL_MS)
  if (stalled.length > 0) {
    const since = Math.min(...stalled.map((b) => b.stillSince!))
    parts.push(`stalled ${durationText(now - since)}: Sales Channels unavailable? the service retries for about 15 min`)
  }
  if (nextReadAt !== undefined && nextReadAt > now) parts.push(`next check in ${durationText(nextReadAt - now)}`)
  return parts.join(' · ')
}

/** `Summary: 3 of 120 Properties change, 1 has refusals.` */
export function diffSummary(preview: RestrictionBatchPreview): string {
  const changing = preview.properties.filter((p) => p.changes.changed > 0).length
  const refusing = preview.properties.filter((p) => p.changes.refused > 0).length
  const total = preview.properties.length
  return (
    `Summary: ${changing} of ${plural(total, 'Property', 'Properties')} ${changing === 1 ? 'changes' : 'change'}` +
    `${refusing > 0 ? `, ${refusing} ${refusing === 1 ? 'has' : 'have'} refused values` : ''}.`
  )
}

const SHORT_REASONS: Record<string, string> = {
  manual_override: 'Manual Override',
  managed_by_another_pricing_tool: 'another pricing tool',
  blocked_by_linked_property: 'linked Property',
}

/**
 * The calendar on a terminal: one block per Property (its name and id once, not on every night),
 * a row per night, unwritable fields with a short reason, and the reasons in words below. With
 * `width` (the terminal's columns) the unwritable fields of a night are cut with `…` to fit it:
 * `--csv` and `--json` have them whole.
 */
export function renderCalendar(records: readonly RestrictionRecord[], names: Names, paint: Paint = plain, width?: number): string {
  const out: string[] = []
  const reasons = new Set<string>()
  let i = 0
  while (i < records.length) {
    const id = records[i]!.property_id
    const rows: (string | number)[][] = []
    for (; i < records.length && records[i]!.property_id === id; i++) {
      const r = records[i]!
      const show = (field: string, value: unknown) => (value === null || value === undefined ? '-' : formatValue(field, value))
      for (const u of r.unwritable_fields) reasons.add(u.reason)
      rows.push([
        r.date,
        show('rate', r.rate),
        show('min_stay', r.min_stay),
        show('closed_to_arrival', r.closed_to_arrival),
        show('closed_to_departure', r.closed_to_departure),
        show('availability', r.availability),
        r.unwritable_fields.map((u) => `${u.field} (${SHORT_REASONS[u.reason] ?? u.reason})`).join(', '),
      ])
    }
    const headers = ['date', 'rate', 'min_stay', 'CTA', 'CTD', 'available', 'unwritable']
    if (width !== undefined) fitLastColumn(headers, rows, width)
    if (out.length > 0) out.push('')
    out.push(paint('bold', propertyLabel(names, id)))
    out.push(textTable(headers, rows, paint).trimEnd())
  }
  if (reasons.size > 0) {
    out.push('', paint('bold', 'Unwritable fields: a batch refuses them on those nights'))
    for (const reason of reasons) out.push(`  ${SHORT_REASONS[reason] ?? reason}: ${reasonInWords(reason)}`)
  }
  return out.length > 0 ? out.join('\n') + '\n' : 'No nights in that range.\n'
}

/** The last cell of each row cut with `…` so that the table fits `width` (columns two spaces apart), never below 12 characters. */
function fitLastColumn(headers: readonly string[], rows: (string | number)[][], width: number): void {
  const others = naturalWidths([headers, ...rows]).slice(0, -1)
  const room = Math.max(12, width - tableWidth([...others, 0]))
  for (const row of rows) {
    const last = String(row.at(-1) ?? '')
    if (last.length > room) row[row.length - 1] = last.slice(0, room - 1) + '…'
  }
}
