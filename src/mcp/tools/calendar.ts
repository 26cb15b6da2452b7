/**
 * The calendar toolset: `restrictions get` for a range, and `rates import` from CSV text as a dry
 * run (`preview_rates`) or for real (`apply_rates`). Both rates tools run the very command flow of
 * `pms rates import` (its --json document is their answer), so they plan, preview, recover and
 * journal exactly as the command does.
 */
import {Readable} from 'node:stream'
import type {McpServer} from '@modelcontextprotocol/server'
import {z} from 'zod'
import type {RunContext} from '../../run/context.js'
import {readCalendarOf} from '../../rates/calendar-of.js'
import {RESTRICTION_FIELDS, type PreviewChange, type RestrictionBatchPreview} from '../../contract/index.js'
import {formatValue} from '../../rates/fields.js'
import {localToday, parseRange, planFile} from '../../rates/index.js'
import {plural} from '../../text/words.js'
import {dataAnswer} from '../answer.js'
import {addReadTool, addWriteTool, type ToolEnv} from '../tool.js'
import {propertyId} from './properties.js'

const night = (what: string) => z.string().describe(`${what}: YYYY-MM-DD, today, tomorrow or +Nd`)

const csvInput = z.object({
  csv: z
    .string()
    .min(1)
    .describe(
      'The rates CSV, as `pms rates import` reads it (docs/csv-format.md): a heading line with property_id and date (or from, to), then any of rate, min_stay, closed_to_arrival, closed_to_departure, availability; an empty cell leaves the field untouched',
    ),
})

/** `pms rates import - --json` with the CSV as its input: its --json document (the preview of a dry run, else the result) and its talk. */
async function ratesImport(run: RunContext, csv: string, dryRun: boolean): Promise<{document: unknown; talk: string}> {
  const [{runRates}, {quietUi}] = await Promise.all([import('../../rates/run.js'), import('../../rates/apply.js')])
  const talk: string[] = []
  const result = await runRates(
    run,
    {dryRun, preview: 'reads', wait: false, confirmed: true, keepChanges: true, plan: async (properties) => (await planFile('-', properties, run.clock.now(), () => Readable.from([csv]))).plan},
    quietUi((text) => void talk.push(text)),
  )
  return {document: dryRun ? result.preview : result, talk: talk.join('')}
}

/** `3 of 12 Properties change: 41 nightly values change, 5 already as asked, 2 refused.` and the Properties at stake: what the person confirms. */
export function previewSummary(preview: RestrictionBatchPreview | undefined): string {
  const properties = preview?.properties ?? []
  const sum = (key: 'changed' | 'unchanged' | 'refused') => properties.reduce((n, p) => n + p.changes[key], 0)
  const changing = properties.filter((p) => p.changes.changed > 0).length
  const lines = [
    `${changing} of ${plural(properties.length, 'Property', 'Properties')} ${changing === 1 ? 'changes' : 'change'}: ` +
      `${plural(sum('changed'), 'nightly value', 'nightly values')} ${sum('changed') === 1 ? 'changes' : 'change'}, ${sum('unchanged')} already as asked, ${sum('refused')} refused.`,
  ]
  const notable = properties.filter((p) => p.changes.changed > 0 || p.changes.refused > 0)
  for (const p of notable.slice(0, 10)) lines.push(`- ${p.property_id}: ${p.changes.changed} change, ${p.changes.refused} refused`)
  if (notable.length > 10) lines.push(`- and ${notable.length - 10} more`)
  return lines.join('\n')
}

/** What the question names a Property by, and the currency its rates are in. */
export interface PropertyLabel {
  name: string
  currency: string
}

/** How many changed nights the question shows one by one. */
const FIRST_CHANGES = 5

/**
 * The question before `apply_rates`, from the dry run's changes: the counts, the nights they
 * span, the lowest and highest new value of each field (rates per currency), and the first
 * changes one by one. A grid of 1.00 rates then reads as one, not as "41 nightly values change".
 */
export function ratesQuestion(preview: RestrictionBatchPreview | undefined, properties: ReadonlyMap<string, PropertyLabel>): string {
  const lines = ['Apply these rates and restrictions? This changes what guests are offered and pay.', previewSummary(preview)]
  const changes = (preview?.properties ?? []).flatMap((p) => p.changed.map((change) => ({property: p.property_id, ...change})))
  if (changes.length === 0) return lines.join('\n')
  const currency = (property: string) => properties.get(property)?.currency
  const valueText = (field: string, value: PreviewChange['new'], property: string) => {
    const text = formatValue(field, value)
    return field === 'rate' && typeof value === 'number' ? `${text} ${currency(property) ?? '(currency unknown)'}` : text
  }
  const dates = changes.map((c) => c.date).sort()
  lines.push(`Nights ${dates[0]} to ${dates.at(-1)}, new values:`)
  const fields = [...new Set([...RESTRICTION_FIELDS, ...changes.map((c) => c.field)])]
  for (const field of fields) {
    const ofField = changes.filter((c) => c.field === field)
    if (ofField.length === 0) continue
    const numbers = ofField.filter((c) => typeof c.new === 'number')
    // Rates of Properties in different currencies are not one range.
    const ranges = new Map<string, {low: number; high: number}>()
    for (const c of numbers) {
      const unit = field === 'rate' ? (currency(c.property) ?? '(currency unknown)') : ''
      const value = c.new as number
      const range = ranges.get(unit)
      ranges.set(unit, range ? {low: Math.min(range.low, value), high: Math.max(range.high, value)} : {low: value, high: value})
    }
    const parts = [...ranges].sort(([a], [b]) => a.localeCompare(b)).map(([unit, {low, high}]) => {
      const range = `${formatValue(field, low)}–${formatValue(field, high)}`
      return unit === '' ? range : `${range} ${unit}`
    })
    for (const value of [true, false, null]) {
      const count = ofField.filter((c) => c.new === value).length
      if (count > 0) parts.push(`${formatValue(field, value)} on ${plural(count, 'night')}`)
    }
    lines.push(`- ${field} ${parts.join(', ')}`)
  }
  const first = [...changes].sort((a, b) => a.date.localeCompare(b.date)).slice(0, FIRST_CHANGES)
  lines.push(first.length === changes.length ? 'The changes:' : `The first ${first.length} of ${changes.length} changes:`)
  for (const c of first) {
    const name = properties.get(c.property)?.name
    const property = name === undefined ? c.property : `${name} (${c.property.slice(0, 8)})`
    lines.push(`- ${c.date} ${property}: ${c.field} ${valueText(c.field, c.current, c.property)} → ${valueText(c.field, c.new, c.property)}`)
  }
  return lines.join('\n')
}

export function registerCalendarTools(server: McpServer, env: ToolEnv): void {
  addReadTool(server, env, {
    name: 'get_restrictions',
    title: 'Read the calendar',
    description:
      'Rate, min stay, closures and availability per night for a range, with the fields a batch would refuse, as `pms restrictions get --json` prints them (under `records`).',
    cost: '1 read call per 100 Properties and 366 nights, plus 1 per page of Properties',
    input: z.object({
      property_ids: z.array(propertyId).max(1000).optional().describe('Properties to read; every Property of the connection when left out'),
      from: night('First night'),
      to: night('Last night, inclusive'),
    }),
    run: async ({property_ids, from, to}, {run}) => {
      const range = parseRange(from, to, localToday(run.clock.now()))
      return dataAnswer((await readCalendarOf(run, property_ids, range)).records, {key: 'records'})
    },
  })
  addReadTool(server, env, {
    name: 'preview_rates',
    title: 'Preview a rates import',
    description:
      'A dry run of `pms rates import` for the CSV given: the same diff as `pms rates import --dry-run --json` (under each Property: nights that change, stay, or are refused), from reads of the current values. Nothing is written. A CSV with problems is refused with every line and column at fault.',
    cost: '1 read call per page of Properties, and about 1 read call per 100 Properties and 366 nights of the CSV; no write call',
    input: csvInput,
    run: async ({csv}, {run}) => dataAnswer((await ratesImport(run, csv, true)).document),
  })
  addWriteTool(server, env, {
    name: 'apply_rates',
    title: 'Apply a rates import',
    description:
      'Submits the CSV as `pms rates import --yes --json` does: previewed, then every batch submitted, even one whose preview shows nothing changing (a read shows applied values, not a batch still waiting to overwrite them; the service itself sends nothing for a value already current), each attempt under an Idempotency-Key kept in the profile\'s journal, so repeating the call after a lost answer recovers the batch instead of submitting it twice. Answers the batches (ids, outcome); follow them with get_batch.',
    cost: 'reads: the preview shown in the question and the Property listing for its names and currencies, then the same preview again before submitting (about 1 read call per 100 Properties and 366 nights each time); writes: 1 submission per batch',
    destructive: true,
    idempotent: true,
    input: csvInput,
    question: async ({csv}, {run, client}) => {
      const preview = (await ratesImport(run, csv, true)).document as RestrictionBatchPreview
      const properties = new Map<string, PropertyLabel>()
      if (preview.properties.some((p) => p.changed.length > 0)) {
        for await (const property of client.properties.list({limit: 100})) properties.set(property.id, {name: property.name, currency: property.currency})
      }
      return ratesQuestion(preview, properties)
    },
    run: async ({csv}, {run}) => {
      const {document, talk} = await ratesImport(run, csv, false)
      return dataAnswer(document, {note: talk.trim() || undefined})
    },
  })
}
