/**
 * Views of batches and calendars: outcome reports (`batches get`, `batches wait`) and the
 * calendar read by `restrictions get` and `rates export`. The import flow is in ../apply-run.ts.
 */
import type {PmsClient} from '../../client/index.js'
import type {BatchReport} from '../../contract/index.js'
import {readCalendarOf as readCalendar, type CallProgress} from '../../rates/calendar-of.js'
import type {NightRange} from '../../rates/index.js'
import {reportWidth} from '../apply-run.js'
import {renderReport} from './rates-text.js'
import {watchInterrupt} from '../../run/signals.js'
import type {RunContext} from '../../run/context.js'
import {paint} from '../output.js'
import {createFollowDisplay} from '../follow-display.js'
import {createProgress} from '../progress.js'
import {assertUuid} from '../../client/ids.js'
import {idHint, propertyNames} from '../ids.js'
import {followBatches} from '../../batches/submitted.js'

/** Outcome reports as printed by `batches get` and `batches wait`: one JSON document, or each report with Property names. */
export async function showReports(ctx: RunContext, client: PmsClient, reports: readonly BatchReport[]): Promise<string> {
  if (ctx.json) return JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2) + '\n'
  const rates = await import('../../rates/index.js')
  const names = propertyNames(ctx, rates.namesOf(await rates.loadProperties(client)))
  return reports.map((report) => renderReport(report, names, (style, text) => paint(ctx.io, style, text), reportWidth(ctx.io))).join('\n')
}

export {renderCalendar} from './rates-text.js'

/** The calendar read of `restrictions get`, with a bar over the calls on a terminal. */
export async function readCalendarOf(ctx: RunContext, wanted: readonly string[] | undefined, range: NightRange): Promise<Awaited<ReturnType<typeof readCalendar>>> {
  return readCalendar(ctx, wanted, range, calendarBar(ctx))
}

/** The bar over the calls of a calendar read (`restrictions get`, `rates export`), drawn on a terminal only. */
export function calendarBar(ctx: RunContext): (calls: number) => CallProgress {
  return (total) => createProgress(ctx.io, {label: 'reading', total, clock: ctx.clock})
}

/**
 * `batches wait`: follows the batches (a status line on a terminal), stops on --timeout or Ctrl-C
 * with the ids still running, prints the reports and sets exit 5 when one ended partially_failed,
 * failed or cancelled, or holds refused changes.
 */

export async function waitAndShow(ctx: RunContext, ids: readonly string[], timeoutSeconds?: number): Promise<void> {
  for (const id of ids) assertUuid(id, 'batch', idHint('batch', ctx.profile))
  const [{createClient}, rates] = await Promise.all([import('../../run/session.js'), import('../../rates/index.js')])
  const {io} = ctx
  const client = await createClient(ctx)
  const interrupt = watchInterrupt()
  const waiting = createFollowDisplay(io, ids, ctx.clock)
  try {
    const reports = await followBatches(ctx, client, ids, {
      timeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000,
      signal: interrupt.signal,
      onReport: (report) => waiting.report(report),
      onPause: (ms) => waiting.pause(ms),
    }).finally(() => waiting.done())
    io.out(await showReports(ctx, client, reports))
    const undone = rates.notAllApplied(reports)
    if (undone.partial || undone.refused > 0) process.exitCode = 5
    if (undone.refused > 0) io.err(rates.refusedLine(undone.refused))
    if (undone.partial) {
      io.err('Some changes were not applied (failed or cancelled). To send them again, run the import (or restrictions set) again: it submits what is still to change.\n')
    }
  } finally {
    interrupt.dispose()
    await client.close()
  }
}
