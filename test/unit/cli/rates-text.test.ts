import {describe, expect, it} from 'vitest'
import type {BatchReport, RestrictionBatchPreview, RestrictionRecord} from '../../../src/contract/index.js'
import type {ServedBatchReport} from '../../../src/sandbox/batches/report.js'
import {calendarRows, parseRange, splitCalendarCalls} from '../../../src/rates/calendar.js'
import {dayFromCivil} from '../../../src/contract/days.js'
import {exportRows} from '../../../src/rates/export.js'
import {changeRuns, foldIntoRuns, mergePreviews, type RunsByProperty} from '../../../src/rates/diff.js'
import {capDiff, followLine, renderPlanSummary, renderPreview, renderReport} from '../../../src/cli/views/rates-text.js'
import {A, B} from '../rates/helpers.js'

const names = new Map([
  [A, 'Sea View'],
  [B, 'Loft'],
])

function preview(properties: RestrictionBatchPreview['properties']): RestrictionBatchPreview {
  return {dry_run: true, properties}
}

const change = (date: string, field: string, current: number | boolean | null, next: number | boolean | null) => ({date, field, current, new: next})

describe('rendering a dry run', () => {
  const sample = preview([
    {
      property_id: A,
      changes: {submitted: 12, changed: 9, unchanged: 1, refused: 2},
      changed: [
        ...['01', '02', '03', '04', '05', '06', '07'].map((day) => change(`2026-12-${day}`, 'rate', 120, 135)),
        change('2026-12-31', 'min_stay', null, 3),
        change('2027-01-01', 'min_stay', null, 3),
      ],
      refused_fields: [{field: 'rate', reason: 'manual_override', from: '2026-12-08', to: '2026-12-09'}],
    },
  ])

  it('groups changes into runs of nights with the same old and new value', () => {
    const text = renderPreview(sample, names)
    expect(text).toContain('  2026-12-01..07          rate 120.00 -> 135.00\n')
    expect(text).toContain('  2026-12-31..2027-01-01  min_stay (unset) -> 3\n')
  })

  it('starts with a summary per Property: values sent, changes, unchanged, refused', () => {
    const [header, row] = renderPreview(sample, names).split('\n')
    expect(header!.split(/\s{2,}/)).toEqual(['Property', 'values', 'changes', 'unchanged', 'refused'])
    expect(row!.split(/\s{2,}/)).toEqual([`Sea View (${A})`, '12', '9', '1', '2'])
  })

  it('lists refused fields with the reason in words', () => {
    expect(renderPreview(sample, names)).toContain('  2026-12-08..09          rate: frozen by the host (Manual Override)')
  })

  it('says so when nothing would change', () => {
    const text = renderPreview(preview([{property_id: A, changes: {submitted: 3, changed: 0, unchanged: 3, refused: 0}, changed: [], refused_fields: []}]), names)
    expect(text).toContain('Nothing to change: every submitted value equals the current one or is refused.')
  })

  it('paints old values red and new values green when colours are on', () => {
    const painted = renderPreview(sample, names, (style, text) => `<${style}>${text}</${style}>`)
    expect(painted).toContain('rate <red>120.00</red> -> <green>135.00</green>')
  })

  it('breaks a run where the old value differs or a night is missing', () => {
    const runs = changeRuns([change('2026-12-01', 'rate', 100, 135), change('2026-12-02', 'rate', 110, 135), change('2026-12-04', 'rate', 110, 135)])
    expect(runs.map((r) => [r.from, r.to])).toEqual([
      [dayFromCivil(2026, 12, 1), dayFromCivil(2026, 12, 1)],
      [dayFromCivil(2026, 12, 2), dayFromCivil(2026, 12, 2)],
      [dayFromCivil(2026, 12, 4), dayFromCivil(2026, 12, 4)],
    ])
  })

  it('folding changes into runs batch by batch renders the same diff, joining runs that meet across batches', () => {
    const days = ['01', '02', '03', '04', '05', '06', '07']
    const part = (list: string[]) =>
      preview([{property_id: A, changes: {submitted: list.length, changed: list.length, unchanged: 0, refused: 0}, changed: list.map((day) => change(`2026-12-${day}`, 'rate', 120, 135)), refused_fields: []}])
    const runs: RunsByProperty = new Map()
    const first = part(days.slice(0, 4))
    const second = part(days.slice(4))
    foldIntoRuns(first, runs)
    foldIntoRuns(second, runs)
    expect(first.properties[0]!.changed).toEqual([])
    const folded = renderPreview(mergePreviews([first, second]), names, undefined, runs)
    expect(folded).toBe(renderPreview(mergePreviews([part(days.slice(0, 4)), part(days.slice(4))]), names))
    expect(folded).toContain('  2026-12-01..07          rate 120.00 -> 135.00\n')
  })

  it('merges the previews of a Property split over two batches', () => {
    const merged = mergePreviews(
      [
        preview([{property_id: B, changes: {submitted: 2, changed: 1, unchanged: 1, refused: 0}, changed: [change('2026-12-02', 'rate', 1, 2)], refused_fields: []}]),
        preview([
          {property_id: B, changes: {submitted: 1, changed: 1, unchanged: 0, refused: 0}, changed: [change('2026-12-01', 'rate', 1, 2)], refused_fields: []},
          {property_id: A, changes: {submitted: 1, changed: 0, unchanged: 1, refused: 0}, changed: [], refused_fields: []},
        ]),
      ],
      [A, B],
    )
    expect(merged.properties.map((p) => p.property_id)).toEqual([A, B])
    expect(merged.properties[1]!.changes).toEqual({submitted: 3, changed: 2, unchanged: 1, refused: 0})
    expect(merged.properties[1]!.changed.map((c) => c.date)).toEqual(['2026-12-01', '2026-12-02'])
  })
})

describe('rendering an outcome report', () => {
  const counts = (over: Partial<Record<string, number>>) => ({submitted: 0, pending: 0, applied: 0, unchanged: 0, superseded: 0, refused: 0, failed: 0, cancelled: 0, ...over})
  const report: ServedBatchReport = {
    id: '40000000-0000-4000-8000-000000000001',
    status: 'partially_failed',
    created_at: '2026-11-22T10:00:00.000Z',
    updated_at: '2026-11-22T10:05:00.000Z',
    completed_at: '2026-11-22T10:05:00.000Z',
    changes: counts({submitted: 10, applied: 6, refused: 2, failed: 2}),
    properties: [
      {property_id: A, status: 'completed', changes: counts({submitted: 8, applied: 6, refused: 2}), refused_fields: [{field: 'availability', reason: 'blocked_by_linked_property', from: '2026-12-01', to: '2026-12-02'}], failures: []},
      {property_id: B, status: 'failed', changes: counts({submitted: 2, failed: 2}), refused_fields: [], failures: [{field: 'rate', code: 'sales_channel_unavailable', from: '2026-12-01', to: '2026-12-02'}]},
    ],
  }

  it('counts per Property; counts that are 0 everywhere (and pending, once final) are left out, so that the report fits 80 columns on a terminal', () => {
    // On a terminal ids are cut to prefixes; off one (no idText) they are whole.
    const shortened = {get: (id: string) => names.get(id), idText: (id: string) => `${id.slice(0, 8)}…`}
    const lines = renderReport(report, shortened, undefined, 80).split('\n')
    expect(lines[0]).toBe(`Batch ${report.id}: partially_failed`)
    expect(lines[1]!.split(/\s{2,}/)).toEqual(['Property', 'status', 'submitted', 'applied', 'refused', 'failed'])
    expect(lines[2]!.split(/\s{2,}/)).toEqual([`Sea View (${A.slice(0, 8)}…)`, 'completed', '8', '6', '2', '0'])
    expect(lines[4]!.split(/\s{2,}/)).toEqual(['Total', 'partially_failed', '10', '6', '2', '2'])
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80)
    expect(renderReport(report, names).split('\n')[2]!.split(/\s{2,}/)[0]).toBe(`Sea View (${A})`)
  })

  it('on a terminal, cuts long Property labels with … so that the report fits its width; off a terminal cuts nothing', () => {
    const long = new Map([[A, 'A very long Property name that goes on and on, Lisbon 12']])
    const completed: ServedBatchReport = {...report, status: 'completed', changes: counts({submitted: 10, applied: 4, unchanged: 4, refused: 2}), properties: [{...report.properties[0]!, changes: counts({submitted: 10, applied: 4, unchanged: 4, refused: 2})}]}
    const lines = renderReport(completed, long, undefined, 80).split('\n')
    for (const line of lines.slice(0, 3)) expect(line.length, line).toBeLessThanOrEqual(80)
    expect(lines[2]).toMatch(/^A very long P.*… \(10000000…\)\s+completed/)
    const whole = renderReport(completed, long).split('\n')
    expect(whole[2]).toMatch(new RegExp(`^A very long Property name that goes on and on, Lisbon 12 \\(${A}\\)\\s+completed`))
  })

  it('shows what is still pending while the batch is in flight', () => {
    const inFlight = {...report, status: 'processing', changes: {...report.changes, pending: 3}}
    const lines = renderReport(inFlight, names).split('\n')
    expect(lines[1]!.split(/\s{2,}/)).toEqual(['Property', 'status', 'submitted', 'applied', 'refused', 'failed', 'pending'])
    expect(lines[4]!.split(/\s{2,}/)).toEqual(['Total', 'processing', '10', '6', '2', '2', '3'])
  })

  it('lists refusals and failures as runs of dates with words, wrapped to 80 columns', () => {
    const text = renderReport(report, names).replace(/\n {28}/g, ' ')
    expect(text).toContain('2026-12-01..02          availability: closed because a linked Property is booked or closed')
    expect(text).toContain('2026-12-01..02          rate: the Sales Channels stayed unavailable through every retry')
  })
})

const record = (property: string, date: string, values: Partial<RestrictionRecord>): RestrictionRecord => ({
  property_id: property,
  date,
  rate: null,
  min_stay: null,
  closed_to_arrival: null,
  closed_to_departure: null,
  availability: null,
  unwritable_fields: [],
  ...values,
})

describe('exporting the calendar in the import format', () => {
  it('merges equal consecutive nights, leaves unset values empty and writes rates with two decimals', () => {
    const rows = exportRows(
      [
        record(A, '2026-12-01', {rate: 120, min_stay: 2, availability: true}),
        record(A, '2026-12-02', {rate: 120, min_stay: 2, availability: true}),
        record(A, '2026-12-03', {rate: 120.5, min_stay: 2, availability: true}),
        record(B, '2026-12-04', {rate: 120.5, min_stay: 2, availability: true}),
      ],
      names,
    )
    expect(rows).toEqual([
      {property_id: A, property: 'Sea View', from: '2026-12-01', to: '2026-12-02', rate: '120.00', min_stay: '2', closed_to_arrival: '', closed_to_departure: '', availability: 'true'},
      {property_id: A, property: 'Sea View', from: '2026-12-03', to: '2026-12-03', rate: '120.50', min_stay: '2', closed_to_arrival: '', closed_to_departure: '', availability: 'true'},
      {property_id: B, property: 'Loft', from: '2026-12-04', to: '2026-12-04', rate: '120.50', min_stay: '2', closed_to_arrival: '', closed_to_departure: '', availability: 'true'},
    ])
  })

  it('leaves unwritable fields empty so that importing the export unchanged is refused nothing', () => {
    const rows = exportRows([record(A, '2026-12-01', {rate: 99, availability: false, unwritable_fields: [{field: 'rate', reason: 'manual_override'}]})], names)
    expect(rows[0]).toMatchObject({rate: '', availability: 'false'})
    expect(exportRows([record(A, '2026-12-01', {rate: 99, unwritable_fields: [{field: 'rate', reason: 'manual_override'}]})], names)).toEqual([])
  })
})

describe('exporting every Property of the scope', () => {
  it('gives a Property with nothing set one row over the range with empty cells, in the order of the scope', () => {
    const rows = exportRows([record(B, '2026-12-04', {rate: 120.5})], names, {ids: [A, B], from: parseRange('2026-12-01', '2026-12-05').from, to: parseRange('2026-12-01', '2026-12-05').to})
    expect(rows.map((r) => r.property_id)).toEqual([A, B])
    expect(rows[0]).toEqual({property_id: A, property: 'Sea View', from: '2026-12-01', to: '2026-12-05', rate: '', min_stay: '', closed_to_arrival: '', closed_to_departure: '', availability: ''})
  })
})

describe('reading the calendar', () => {
  it('splits reads into calls of at most 100 Properties and 366 nights', () => {
    const ids = Array.from({length: 250}, (_, i) => `p${i}`)
    const calls = splitCalendarCalls(ids, parseRange('2026-12-01', '2028-11-30'))
    expect(calls).toHaveLength(3 * 2)
    expect(calls.every((c) => c.propertyIds.length <= 100)).toBe(true)
    expect(calls[0]).toMatchObject({from: '2026-12-01', to: '2027-12-01'})
    expect(calls[1]).toMatchObject({from: '2027-12-02', to: '2028-11-30'})
  })

  it('refuses a --to before --from and dates not in YYYY-MM-DD form', () => {
    expect(() => parseRange('2026-12-02', '2026-12-01')).toThrow(/before --from/)
    expect(() => parseRange('12/01/2026', '2026-12-01')).toThrow(/--from 12\/01\/2026/)
    expect(() => parseRange('2026-12-01', '2027-02-30')).toThrow('--to 2027-02-30 is not a calendar date (no such day in that month)')
  })

  it('shows unwritable fields grouped by reason', () => {
    const [row] = calendarRows(
      [
        record(A, '2026-12-01', {
          rate: 100,
          unwritable_fields: [
            {field: 'rate', reason: 'managed_by_another_pricing_tool'},
            {field: 'min_stay', reason: 'managed_by_another_pricing_tool'},
            {field: 'availability', reason: 'manual_override'},
          ],
        }),
      ],
      names,
    )
    expect(row!.unwritable).toBe(
      'rate, min_stay: the Property is priced by another pricing tool; only availability is writable; availability: frozen by the host (Manual Override); the value is ignored until the host lifts it',
    )
    expect(row!.rate).toBe('100.00')
    expect(row!.min_stay).toBe('')
  })
})

describe('long summaries', () => {
  const quiet = (i: number) => ({
    property_id: `40000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    changes: {submitted: 31, changed: 0, unchanged: 31, refused: 0},
    changed: [],
    refused_fields: [],
  })

  it('past 20 Properties the dry-run summary lists those with changes or refusals and counts the quiet ones on one line', () => {
    const loud = {...quiet(999), property_id: A, changes: {submitted: 31, changed: 3, unchanged: 28, refused: 0}, changed: [change('2026-12-24', 'rate', 100, 110)]}
    const text = renderPreview(preview([loud, ...Array.from({length: 30}, (_, i) => quiet(i))]), names)
    const lines = text.split('\n\n')[0]!.split('\n')
    expect(lines.filter((line) => line.startsWith('Sea View'))).toHaveLength(1)
    expect(lines.some((line) => line.startsWith('40000000'))).toBe(false)
    expect(text).toMatch(/30 other Properties: nothing to change\s+930\s+0\s+930\s+0/)
    expect(text).toMatch(/Total\s+961\s+3\s+958\s+0/)
  })

  it('past 20 Properties with nothing to change anywhere, the one line does not call them "other"', () => {
    const text = renderPreview(preview(Array.from({length: 30}, (_, i) => quiet(i))), names)
    expect(text).toMatch(/^30 Properties: nothing to change\s+930\s+0\s+930\s+0/m)
    expect(text).not.toContain('other')
  })

  it('keeps one line per Property up to 20 Properties', () => {
    const text = renderPreview(preview(Array.from({length: 20}, (_, i) => quiet(i))), names)
    expect(text.split('\n').filter((line) => line.startsWith('40000000'))).toHaveLength(20)
    expect(text).not.toContain('other Properties')
  })

  it('past 20 Properties the outcome report counts completed Properties with no trouble on one line', () => {
    const counts = {submitted: 31, pending: 0, applied: 31, unchanged: 0, superseded: 0, refused: 0, failed: 0, cancelled: 0}
    const ok = (i: number) => ({property_id: `40000000-0000-4000-8000-${String(i).padStart(12, '0')}`, status: 'completed', changes: counts, refused_fields: [], failures: []})
    const report: BatchReport = {
      id: 'b',
      status: 'partially_failed',
      created_at: '',
      updated_at: '',
      completed_at: null,
      changes: {...counts, submitted: 31 * 26, applied: 31 * 25, failed: 31},
      properties: [
        ...Array.from({length: 25}, (_, i) => ok(i)),
        {property_id: A, status: 'failed', changes: {...counts, applied: 0, failed: 31}, refused_fields: [], failures: [{field: 'rate', code: 'sales_channel_unavailable', from: '2026-12-01', to: '2026-12-31'}]},
      ],
    }
    const text = renderReport(report, names)
    expect(text).toMatch(/Sea View \(.+\)\s+failed\s+31\s+0\s+31/)
    expect(text).toMatch(/25 other Properties: no trouble\s+completed\s+775\s+775\s+0/)
    expect(text.split('\n').some((line) => line.startsWith('40000000'))).toBe(false)
  })

  it('when every Property of a long report shares the line, it does not call them "other"', () => {
    const counts = {submitted: 31, pending: 0, applied: 31, unchanged: 0, superseded: 0, refused: 0, failed: 0, cancelled: 0}
    const ok = (i: number) => ({property_id: `40000000-0000-4000-8000-${String(i).padStart(12, '0')}`, status: 'completed', changes: counts, refused_fields: [], failures: []})
    const report: BatchReport = {
      id: 'b',
      status: 'completed',
      created_at: '',
      updated_at: '',
      completed_at: null,
      changes: {...counts, submitted: 31 * 25, applied: 31 * 25},
      properties: Array.from({length: 25}, (_, i) => ok(i)),
    }
    const text = renderReport(report, names)
    expect(text).toMatch(/^25 Properties: no trouble\s+completed\s+775\s+775/m)
    expect(text).not.toContain('other')
  })
})

describe('the calendar on a terminal', () => {
  it('shows each Property once with its full id, a row per night, unwritable fields with a short reason and the reasons in words', async () => {
    const {renderCalendar} = await import('../../../src/cli/views/rates-text.js')
    const record = (date: string, unwritable: {field: string; reason: string}[] = []) => ({
      property_id: A,
      date,
      rate: 120,
      min_stay: null,
      closed_to_arrival: false,
      closed_to_departure: false,
      availability: true,
      unwritable_fields: unwritable,
    })
    const text = renderCalendar(
      [record('2026-12-01'), record('2026-12-02', [{field: 'rate', reason: 'manual_override'}])] as RestrictionRecord[],
      names,
    )
    const lines = text.split('\n')
    expect(lines[0]).toBe(`Sea View (${A})`)
    expect(lines[1]).toMatch(/^date\s+rate\s+min_stay\s+CTA\s+CTD\s+available\s+unwritable$/)
    expect(lines[2]).toMatch(/^2026-12-01\s+120\.00\s+-\s+false\s+false\s+true$/)
    expect(lines[3]).toMatch(/^2026-12-02\s+120\.00\s+-\s+false\s+false\s+true\s+rate \(Manual Override\)$/)
    expect(text).toContain('  Manual Override: frozen by the host (Manual Override); the value is ignored until the host lifts it')
    expect(text.match(new RegExp(A, 'g'))).toHaveLength(1)
  })
})

describe('choosing what to read and export', () => {
  it('checks --property ids against the listing (any case) and names those outside the scope', async () => {
    const {selectProperties} = await import('../../../src/rates/calendar.js')
    const listed = [{id: A}, {id: B}]
    expect(selectProperties(listed)).toEqual([A, B])
    expect(selectProperties(listed, [B.toUpperCase(), B])).toEqual([B])
    expect(() => selectProperties(listed, [A, 'nope'])).toThrow('--property nope: not a Property of this App Connection')
  })

  it('notes when an export covers nights that cannot be imported back', async () => {
    const {exportRangeNote} = await import('../../../src/rates/calendar.js')
    const now = Date.UTC(2026, 10, 22, 12)
    expect(exportRangeNote(parseRange('2026-11-23', '2028-11-20'), now)).toBeUndefined()
    expect(exportRangeNote(parseRange('2026-11-01', '2026-11-30'), now)).toContain('export from 2026-11-23 to at most 2028-11-20')
    expect(exportRangeNote(parseRange('2026-12-01', '2028-12-31'), now)).toContain('cannot be imported back')
  })
})

describe('a long diff on a terminal', () => {
  const diff = ['Property  values', 'A         3', '', 'Changes', 'A', '  2026-12-01  rate 1 -> 2', '  2026-12-02  rate 1 -> 3', 'Refused (not written)', 'B', '  x'].join('\n') + '\n'

  it('keeps the summary and a screenful of changes, then says how many lines were left out and how to see them', () => {
    const capped = capDiff(diff, 3)
    expect(capped.cut).toBe(4)
    expect(capped.text).toBe(['Property  values', 'A         3', '', 'Changes', 'A', '  2026-12-01  rate 1 -> 2', '... 4 more lines: `--dry-run --json` or `--full-diff` shows all'].join('\n') + '\n')
  })

  it('tells the summary rows past 20 as one line, keeping the heading and the Total', () => {
    const summary = ['Property  values', ...Array.from({length: 25}, (_, i) => `P${i}  1`), 'Total  25']
    const capped = capDiff([...summary, '', 'Changes'].join('\n') + '\n', 10)
    const lines = capped.text.trimEnd().split('\n')
    expect(lines.slice(0, 2)).toEqual(['Property  values', 'P0  1'])
    expect(lines.slice(20, 25)).toEqual(['P19  1', '... 5 more Properties', 'Total  25', '', 'Changes'])
    expect(capped.cut).toBe(5)
  })

  it('leaves a diff that fits, and any diff without a limit, whole', () => {
    expect(capDiff(diff, 7)).toEqual({text: diff, cut: 0})
    expect(capDiff(diff, undefined)).toEqual({text: diff, cut: 0})
  })
})

describe('the plan summary after submitting', () => {
  it('says per batch what the run did: a batch recovered from an earlier run says so', () => {
    const text = renderPlanSummary(
      [
        {index: 0, properties: 3, entries: 28, changes: 143, id: '1c979dcd-bee3-43ea-b2cf-898d711f2d24', status: 'processing', outcome: 'submitted'},
        {index: 1, properties: 1, entries: 2, changes: 4, id: '2c979dcd-bee3-43ea-b2cf-898d711f2d24', status: 'queued', outcome: 'submitted'},
        {index: 2, properties: 1, entries: 2, changes: 4, id: '3c979dcd-bee3-43ea-b2cf-898d711f2d24', status: 'queued', outcome: 'recovered'},
      ],
    )
    const lines = text.split('\n')
    expect(lines[1]!.split(/\s{2,}/).slice(-1)).toEqual(['processing'])
    expect(lines[2]!.split(/\s{2,}/).slice(-1)).toEqual(['queued'])
    expect(lines[3]!.split(/\s{2,}/).slice(-1)).toEqual(['queued (recovered)'])
    expect(lines[0]!.split(/\s{2,}/)).toEqual(['batch', 'Properties', 'entries', 'values', 'id', 'status'])
    expect(text).not.toContain('allow')
  })

  it('"changes" is the number of values the dry run found to change, as in the question; "values" what the batch sends', () => {
    const text = renderPlanSummary([{index: 0, properties: 3, entries: 28, changes: 139, changed: 9, id: '1c979dcd-bee3-43ea-b2cf-898d711f2d24', status: 'queued', outcome: 'submitted'}])
    const [header, row] = text.split('\n')
    expect(header!.split(/\s{2,}/)).toEqual(['batch', 'Properties', 'entries', 'values', 'changes', 'id', 'status'])
    expect(row!.trim().split(/\s{2,}/).slice(0, 5)).toEqual(['1', '3', '28', '139', '9'])
  })
})

describe('the waiting line of batches wait and rates import --wait', () => {
  const id = (n: number) => `${n}0000000-0000-4000-8000-000000000000`
  it('shows each batch status, the changes pending and settled, the time waited and the next check', () => {
    const line = followLine(
      [
        {id: id(1), status: 'processing', pending: 9, submitted: 139, stillSince: 0},
        {id: id(2), status: 'completed', pending: 0, submitted: 4, stillSince: 0},
      ],
      12_000,
      0,
      20_000,
    )
    expect(line).toBe('10000000 processing, 20000000 completed · 9 pending, 134 settled · waited 12s · next check in 8s')
  })

  it('past three batches counts them by status', () => {
    const batches = [1, 2, 3, 4].map((n) => ({id: id(n), status: n === 1 ? 'queued' : 'processing', pending: 1, submitted: 1, stillSince: 0}))
    expect(followLine(batches, 1000, 0).startsWith('1 queued, 3 processing · 4 pending, 0 settled')).toBe(true)
  })

  it('when nothing moves for a minute says the Sales Channels hold it up, and for how long', () => {
    const line = followLine([{id: id(1), status: 'processing', pending: 9, submitted: 9, stillSince: 5_000}], 95_000, 0, 100_000)
    expect(line).toContain('stalled 1m30s: Sales Channels unavailable? the service retries for about 15 min · next check in 5s')
    expect(followLine([{id: id(1), status: 'processing', pending: 9, submitted: 9, stillSince: 5_000}], 30_000, 0)).not.toContain('stalled')
  })
})

describe('relative dates in date flags', () => {
  const today = dayFromCivil(2026, 11, 22)
  it('reads today, tomorrow, +Nd, -Nd and +Nw from the day given as today, and YYYY-MM-DD as before', async () => {
    const {parseRange} = await import('../../../src/rates/calendar.js')
    expect(parseRange('today', 'tomorrow', today)).toEqual({from: today, to: today + 1})
    expect(parseRange('+14d', '+2w', today)).toEqual({from: today + 14, to: today + 14})
    expect(parseRange('-3d', 'TODAY', today)).toEqual({from: today - 3, to: today})
    expect(parseRange('2026-12-01', '+10d', today)).toEqual({from: dayFromCivil(2026, 12, 1), to: today + 10})
  })

  it('names the relative forms in the error, and a range that ends before it starts is still refused', async () => {
    const {parseRange} = await import('../../../src/rates/calendar.js')
    expect(() => parseRange('next week', 'today', today)).toThrow('--from next week is not a date in the form YYYY-MM-DD, today, tomorrow or +Nd')
    expect(() => parseRange('+5d', 'today', today)).toThrow('--to today is before --from +5d')
    expect(() => parseRange('today', 'tomorrow')).toThrow('is not a date in the form YYYY-MM-DD')
  })
})
