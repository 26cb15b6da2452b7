/**
 * The run of `rates import` and `restrictions set` between the terminal and the rates feature:
 * the ApplyUi (stdout results, stderr talk, bars and prompts only on a terminal), the attempt
 * journal of the profile in the config directory, and Ctrl-C while submitting or following.
 */
import {RATE_LIMIT_WINDOW_SECONDS, RATE_LIMITS} from '../contract/limits.js'
import type {ApplyUi, Names, Plan, PropertyInfo} from '../rates/index.js'
import {unchangedSentText} from '../rates/diff.js'
import {capDiff, diffSummary, type Paint, renderPlanSummary, renderPreview, renderReport} from './views/rates-text.js'
import type {ApplyFlags} from './apply-flags.js'
import type {RunContext} from '../run/context.js'
import {confirm} from './confirm.js'
import {fitTalk} from './io.js'
import {fitText, paint} from './output.js'
import {createFollowDisplay} from './follow-display.js'
import {CLEAR_LINE, createProgress} from './progress.js'
import {idShortener, propertyNames, rememberIds} from './ids.js'
import {watchInterrupt} from '../run/signals.js'
import {durationText} from '../text/words.js'

export function applyUi(ctx: RunContext, yes: boolean, fullDiff: boolean, names: () => Names): ApplyUi {
  const {io, clock} = ctx
  const painter: Paint = (style, text) => paint(io, style, text)
  // No line wider than the terminal: what the tables do not fit (the plan, the questions, the
  // outcome in words) wraps at spaces. Results go to stdout, and not with --json (the document is the result).
  const out = (text: string) => (ctx.json ? undefined : io.out(fitText(io, text)))
  const talk = (text: string) => io.err(fitTalk(io, text))
  const width = reportWidth(io)
  return {
    talk,
    previewed: ({preview, runs, dryRun, counts}) => {
      // A screenful of the diff where it meets a terminal; whole in pipes, files and with --full-diff.
      const maxLines = fullDiff || !(dryRun ? io.stdoutIsTTY : io.stderrIsTTY) ? undefined : Math.max(10, (io.rows ?? 24) - 4)
      const diff = capDiff(renderPreview(preview, names(), painter, runs, dryRun, width), maxLines, painter)
      // A dry run's diff is its result; before a submission it is talk on the way to the question.
      if (dryRun) return out(diff.text)
      talk(diff.text)
      talk(unchangedSentText(counts))
      // The summary scrolled away above a screenful of changes: say it again next to the question.
      if (diff.cut > 0) talk(`${diffSummary(preview)}\n`)
    },
    planned: (batches) => talk(renderPlanSummary(batches, width)),
    submitted: (batches) => out(renderPlanSummary(batches, width)),
    reported: (reports) => {
      for (const report of reports) out(`\n${renderReport(report, names(), painter, width)}`)
    },
    progress: (label, total, timeLeft) => createProgress(io, {label, total, clock, timeLeft}),
    follow: (ids) => createFollowDisplay(io, ids, clock),
    confirm: (question, cancelled) => confirm(io, question, {yes, cancelled}),
    terminal: io.stderrIsTTY,
    commandIds: (ids) => {
      const shown = idShortener(ctx, 'batch', ids)
      return io.stderrIsTTY ? ids.map((id) => shown(id).replace(/…$/, '')) : [...ids]
    },
  }
}

/** Tables of reports fit the terminal stdout shows on (80 columns when it says none); off a terminal nothing is cut. */
export function reportWidth(io: Pick<RunContext['io'], 'stdoutIsTTY' | 'columns'>): number | undefined {
  return io.stdoutIsTTY ? (io.columns ?? 80) : undefined
}

/**
 * The whole of `rates import` and `restrictions set` after flag parsing: stop before any call
 * when nobody can confirm, list the Properties (scope, names, time zones), let the command turn
 * its input into a plan, then preview, confirm, submit and follow; print the --json document and
 * set exit 5 for a batch that ended partially_failed, failed or cancelled, or holds refused changes.
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
  await input.check?.()
  // Off a terminal nobody can confirm: stop before the first call rather than after the dry runs.
  if (!flags.dryRun && !flags.yes && !(ctx.io.stdinIsTTY && ctx.io.stderrIsTTY)) await confirm(ctx.io, 'Submit the batches?', {yes: false})
  const [{runRates}, {namesOf}] = await Promise.all([import('../rates/run.js'), import('../rates/service.js')])
  // The Properties' names as a terminal shows them (ids shortened), known once the listing is read.
  let names: Names = new Map()
  const result = await runRates(
    ctx,
    {
      plan: (properties) => {
        names = propertyNames(ctx, namesOf(properties))
        return input.plan(properties)
      },
      dryRun: flags.dryRun,
      preview: flags.preview,
      wait: flags.wait,
      resubmit: flags.resubmit,
      confirmed: flags.yes,
      keepChanges: ctx.json,
      waitTimeoutMs: flags.timeout === undefined ? undefined : flags.timeout * 1000,
      watchInterrupt,
      // Reads wait too when other runs spent the budget: say so rather than sit silent.
      onReadWait: (ms) => {
        if (ms >= 2000 && ctx.io.stderrIsTTY) ctx.io.err(`${CLEAR_LINE}waiting ${durationText(ms)} for the read limit (${RATE_LIMITS.read} per ${RATE_LIMIT_WINDOW_SECONDS} s)\n`)
      },
    },
    applyUi(ctx, flags.yes, flags.fullDiff === true, () => names),
  )
  // The submission table shortens batch ids on a terminal: taken back by batches get and wait.
  rememberIds(ctx, 'batch', result.batches.flatMap((b) => (b.id ? [b.id] : [])))
  if (ctx.json) ctx.io.out(JSON.stringify(flags.dryRun ? result.preview : result, null, 2) + '\n')
  if (result.exit_code !== 0) process.exitCode = result.exit_code
}
