/**
 * The calendar toolset: `restrictions get` for a range, and `rates import` from CSV text as a dry
 * run (`preview_rates`) or for real (`apply_rates`). Both rates tools run the very command flow of
 * `pms rates import` (its --json document is their answer), so they plan, preview, recover and
 * journal exactly as the command does.
 */
import {Readable} from 'node:stream'
import type {McpServer} from '@modelcontextprotocol/server'
import {z} from 'zod'
import {applyCommand} from '../../cli/apply-run.js'
import type {RunContext} from '../../cli/base-command.js'
import {readCalendarOf} from '../../cli/views/rates.js'
import type {RestrictionBatchPreview} from '../../contract/index.js'
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

/** The run of `pms rates import - --json` with the CSV as its standard input; answers its --json document and its talk. */
async function ratesImport(run: RunContext, csv: string, dryRun: boolean): Promise<{document: unknown; talk: string}> {
  const out: string[] = []
  const talk: string[] = []
  const io = {...run.io, out: (text: string) => void out.push(text), err: (text: string) => void talk.push(text), stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false}
  await applyCommand(
    {...run, io, json: true},
    {dryRun, preview: true, wait: false, yes: true},
    {plan: async (properties) => (await planFile('-', properties, run.clock.now(), Readable.from([csv]))).plan},
  )
  return {document: JSON.parse(out.join('')) as unknown, talk: talk.join('')}
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
      'A dry run of `pms rates import` for the CSV given: the same diff as `pms rates import --dry-run --json` (under each Property: nights that change, stay, or are refused). Nothing is stored. A CSV with problems is refused with every line and column at fault.',
    cost: '1 read call per page of Properties, and the dry runs: 1 write call per batch (at most 20,000 entries each)',
    input: csvInput,
    run: async ({csv}, {run}) => dataAnswer((await ratesImport(run, csv, true)).document),
  })
  addWriteTool(server, env, {
    name: 'apply_rates',
    title: 'Apply a rates import',
    description:
      'Submits the CSV as `pms rates import --yes --json` does: previewed, batches with nothing to change left out, each attempt under an Idempotency-Key kept in the profile\'s journal, so repeating the call after a lost answer recovers the batch instead of submitting it twice. Answers the batches (ids, outcome); follow them with get_batch.',
    cost: 'writes: the dry runs shown in the question (1 per batch), then before submitting the same preview as rates import (1 per batch) and 1 submission per batch',
    destructive: true,
    idempotent: true,
    input: csvInput,
    question: async ({csv}, {run}) => {
      const {document} = await ratesImport(run, csv, true)
      return `Apply these rates and restrictions? This changes what guests are offered and pay.\n${previewSummary(document as RestrictionBatchPreview)}`
    },
    run: async ({csv}, {run}) => {
      const {document, talk} = await ratesImport(run, csv, false)
      return dataAnswer(document, {note: talk.trim() || undefined})
    },
  })
}
