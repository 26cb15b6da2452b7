/**
 * What `rates import` and `restrictions set` share between the terminal and the rates feature:
 * the ApplyUi of a run (stdout results, stderr talk, bars and prompts only on a terminal), the
 * journal of submissions in the config directory, and Ctrl-C while following batches.
 */
import {join} from 'node:path'
import type {PmsClient} from '../../client/index.js'
import type {BatchReport, RestrictionRecord} from '../../contract/index.js'
import {RATE_LIMIT_WINDOW_SECONDS, RATE_LIMITS} from '../../contract/limits.js'
import type {ApplyUi, NightRange, PacingSignal, Plan, PropertyInfo} from '../../rates/index.js'
import type {RunContext} from '../base-command.js'
import {confirm} from '../confirm.js'
import {paint} from '../output.js'
import {CLEAR_LINE, createProgress} from '../progress.js'
import {durationText} from '../../text/words.js'
import {assertUuid} from '../ids.js'

export function applyUi(ctx: RunContext, yes: boolean): ApplyUi {
  const {io, clock} = ctx
  return {
    out: (text) => (ctx.json ? undefined : io.out(text)),
    talk: (text) => io.err(text),
    progress: (label, total, timeLeft) => createProgress(io, {label, total, clock, timeLeft}),
    confirm: (question) => confirm(io, question, {yes}),
    paint: (style, text) => paint(io, style, text),
  }
}

/**
 * Ctrl-C while following batches stops the following, not the batches: the wait ends with a
 * message naming `pms batches wait ID...` instead of the process dying mid-line.
 */
export function watchInterrupt(): {signal: AbortSignal; dispose(): void} {
  const controller = new AbortController()
  const onInterrupt = () => controller.abort()
  process.once('SIGINT', onInterrupt)
  return {signal: controller.signal, dispose: () => process.off('SIGINT', onInterrupt)}
}

/** The run's client, with its waits for the write limit routed to the progress line of the current phase. */
export async function createRatesClient(ctx: RunContext): Promise<{client: PmsClient; pacing: PacingSignal}> {
  const {createClient} = await import('../session.js')
  const pacing: PacingSignal = {}
  const client = await createClient(ctx, {
    onPacingWait: (limitClass, ms) => {
      if (limitClass === 'write') pacing.listener?.(ms)
      // Reads wait too when other runs spent the budget: say so rather than sit silent.
      else if (limitClass === 'read' && ms >= 2000 && ctx.io.stderrIsTTY) ctx.io.err(`${CLEAR_LINE}waiting ${durationText(ms)} for the read limit (${RATE_LIMITS.read} per ${RATE_LIMIT_WINDOW_SECONDS} s)\n`)
    },
  })
  return {client, pacing}
}

export interface ApplyFlags {
  dryRun: boolean
  preview: boolean
  wait: boolean
  yes: boolean
  /** --timeout in seconds. */
  timeout?: number
  resubmit?: boolean
}

/**
 * The whole of `rates import` and `restrictions set` after flag parsing: stop before any call
 * when nobody can confirm, list the Properties (scope, names, time zones), let the command turn
 * its input into a plan, then preview, confirm, submit and follow; print the --json document and
 * set exit 5 for a batch that ended partially_failed, failed or cancelled.
 */
export async function applyCommand(
  ctx: RunContext,
  flags: ApplyFlags,
  input: {
    /** Checks that need no call (a readable file, flag values), run first: a bad input is named before a missing --yes. */
    check?: () => Promise<void>
    plan: (properties: PropertyInfo[]) => Promise<Plan> | Plan
  },
): Promise<void> {
  const rates = await import('../../rates/index.js')
  await input.check?.()
  // Off a terminal nobody can confirm: stop before the first call rather than after the dry runs.
  if (!flags.dryRun && !flags.yes && !(ctx.io.stdinIsTTY && ctx.io.stderrIsTTY)) await confirm(ctx.io, 'Submit the batches?', {yes: false})
  const {client, pacing} = await createRatesClient(ctx)
  try {
    const properties = await rates.loadProperties(client)
    const plan = await input.plan(properties)
    const journal = await rates.SubmissionJournal.open(join(ctx.configDir, 'rates', 'submitted-batches.json'), ctx.clock.now())
    const result = await rates.applyPlan(
      client,
      plan,
      rates.namesOf(properties),
      {
        dryRun: flags.dryRun,
        preview: flags.preview,
        wait: flags.wait,
        connectionKey: `${client.baseUrl}#${ctx.profile ?? 'default'}`,
        resubmit: flags.resubmit,
        clock: ctx.clock,
        keepChanges: ctx.json,
        journal,
        waitTimeoutMs: flags.timeout === undefined ? undefined : flags.timeout * 1000,
        watchInterrupt,
        pacing,
      },
      applyUi(ctx, flags.yes),
    )
    if (ctx.json) ctx.io.out(JSON.stringify(flags.dryRun ? result.preview : result, null, 2) + '\n')
    if (result.exit_code !== 0) process.exitCode = result.exit_code
  } finally {
    await client.close()
  }
}

/** Outcome reports as printed by `batches get` and `batches wait`: one JSON document, or each report with Property names. */
export async function showReports(ctx: RunContext, client: PmsClient, reports: readonly BatchReport[]): Promise<string> {
  if (ctx.json) return JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2) + '\n'
  const rates = await import('../../rates/index.js')
  const names = rates.namesOf(await rates.loadProperties(client))
  return reports.map((report) => rates.renderReport(report, names, (style, text) => paint(ctx.io, style, text))).join('\n')
}

/**
 * What `restrictions get` and `rates export` read: the listed Properties and the calendar of those
 * chosen (all, or --property ids checked against the listing), with a bar over the calls on a terminal.
 */
export async function readCalendarOf(
  ctx: RunContext,
  wanted: readonly string[] | undefined,
  range: NightRange,
): Promise<{properties: PropertyInfo[]; records: RestrictionRecord[]}> {
  const [{createClient}, rates] = await Promise.all([import('../session.js'), import('../../rates/index.js')])
  const client = await createClient(ctx)
  try {
    const properties = await rates.loadProperties(client)
    const ids = rates.selectProperties(properties, wanted)
    const bar = createProgress(ctx.io, {label: 'reading', total: rates.splitCalendarCalls(ids, range).length, clock: ctx.clock})
    const records = await rates.readCalendar(client, ids, range, () => bar.tick()).finally(() => bar.done())
    return {properties, records}
  } finally {
    await client.close()
  }
}

/**
 * `batches wait`: follows the batches (a status line on a terminal), stops on --timeout or Ctrl-C
 * with the ids still running, prints the reports and sets exit 5 when one ended partially_failed,
 * failed or cancelled.
 */
/** Where a batch id comes from, for a mistyped one. */
export const BATCH_ID_HINT = 'copy the id printed by pms rates import or pms restrictions set'

export async function waitAndShow(ctx: RunContext, ids: readonly string[], timeoutSeconds?: number): Promise<void> {
  for (const id of ids) assertUuid(id, 'batch', BATCH_ID_HINT)
  const [{createClient}, rates] = await Promise.all([import('../session.js'), import('../../rates/index.js')])
  const {io} = ctx
  const client = await createClient(ctx)
  const interrupt = watchInterrupt()
  try {
    const reports = await rates
      .waitForBatches(client, ids, {
        clock: ctx.clock,
        timeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000,
        signal: interrupt.signal,
        onReport: (r) => (io.stderrIsTTY ? io.err(`${CLEAR_LINE}batch ${r.id}: ${r.status}`) : undefined),
      })
      .finally(() => (io.stderrIsTTY ? io.err(CLEAR_LINE) : undefined))
    io.out(await showReports(ctx, client, reports))
    if (reports.some((report) => rates.isPartial(report.status))) {
      process.exitCode = 5
      io.err(
        'Some changes were not applied (failed or cancelled). To send them again, run the import (or restrictions set) again with --resubmit: ' +
          'a plain rerun within 24 hours only replays these batches.\n',
      )
    }
  } finally {
    interrupt.dispose()
    await client.close()
  }
}
