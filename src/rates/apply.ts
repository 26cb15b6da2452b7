/**
 * The shared path of `rates import` and `restrictions set`: dry runs, the summary, confirmation,
 * submission with Idempotency-Keys, and following the batches to their final status.
 *
 * Without --dry-run the batches are previewed first (unless --no-preview), so that the summary
 * shows what will change before anything is stored. Each dry run is a write call under the
 * 10 per 60 s limit, so this doubles the write calls of an import: --no-preview halves the time
 * of a large unattended import at the cost of showing only the planned counts.
 */
import type {BatchReport, RestrictionBatchPreview} from '../contract/index.js'
import type {Clock} from '../client/clock.js'
import type {Plan} from './planner.js'
import {type Names, type Paint, type PlannedBatchSummary, renderPlanSummary, renderPreview, renderReport} from './render.js'
import {isFinal, isPartial, previewPlan, type RatesClient, submitPlan, summarizePlan, waitForBatches} from './service.js'

export interface ApplyUi {
  /** Results (stdout); not called with --json. */
  out(text: string): void
  /** Talk (stderr). */
  talk(text: string): void
  progress(label: string, total: number): {tick(n?: number): void; done(): void}
  confirm(question: string): Promise<boolean>
  paint: Paint
}

export interface ApplyOptions {
  dryRun: boolean
  preview: boolean
  wait: boolean
  connectionKey: string
  clock: Clock
  /** --json: keep every change of the previews for the document; otherwise only runs are kept. */
  keepChanges?: boolean
}

export interface ApplyResult {
  dry_run: boolean
  plan: {batches: number; lower_bound: number; properties: number; entries: number; changes: number}
  preview?: RestrictionBatchPreview
  submitted: boolean
  batches: PlannedBatchSummary[]
  reports?: BatchReport[]
  /** 5 when a batch ended partially_failed, failed or cancelled. */
  exit_code: 0 | 5
}

export async function applyPlan(client: RatesClient, plan: Plan, names: Names, options: ApplyOptions, ui: ApplyUi): Promise<ApplyResult> {
  const planned = summarizePlan(plan)
  const result: ApplyResult = {
    dry_run: options.dryRun,
    plan: {
      batches: plan.batchCount,
      lower_bound: plan.lowerBound,
      properties: plan.totals.properties,
      entries: plan.totals.entries,
      changes: plan.totals.changes,
    },
    submitted: false,
    batches: planned,
    exit_code: 0,
  }
  const batchWord = plan.batchCount === 1 ? '1 batch' : `${plan.batchCount} batches`
  ui.talk(
    `Planned ${batchWord} (no fewer possible: ${plan.lowerBound}) for ${plan.totals.properties} Properties, ` +
      `${plan.totals.entries} entries, ${plan.totals.changes} night x field values.\n`,
  )

  if (options.dryRun || options.preview) {
    const bar = ui.progress('dry runs', plan.batchCount)
    const runs = options.keepChanges ? undefined : new Map()
    try {
      result.preview = await previewPlan(client, plan, () => bar.tick(), runs)
    } finally {
      bar.done()
    }
    ui.out(renderPreview(result.preview, names, ui.paint, runs))
  } else {
    ui.out(renderPlanSummary(planned, plan.lowerBound))
  }
  if (options.dryRun) {
    ui.talk('Dry run: nothing was written.\n')
    return result
  }

  if (!(await ui.confirm(`Submit ${batchWord} (${plan.totals.changes} night x field values)?`))) {
    ui.talk('Nothing was sent.\n')
    return result
  }
  const bar = ui.progress('submitting', plan.batchCount)
  try {
    result.batches = await submitPlan(client, plan, options.connectionKey, () => bar.tick())
  } finally {
    bar.done()
  }
  result.submitted = true
  ui.out(`\n${renderPlanSummary(result.batches, plan.lowerBound)}`)

  if (options.wait) {
    ui.talk('Waiting for every batch to reach a final status...\n')
    const waiting = ui.progress('batches final', result.batches.length)
    const final = new Set<string>()
    try {
      result.reports = await waitForBatches(client, result.batches.map((b) => b.id!), {
        clock: options.clock,
        onReport: (report) => {
          if (isFinal(report.status) && !final.has(report.id)) {
            final.add(report.id)
            waiting.tick()
          }
        },
      })
    } finally {
      waiting.done()
    }
    for (const report of result.reports) ui.out(`\n${renderReport(report, names, ui.paint)}`)
    if (result.reports.some((report) => isPartial(report.status))) result.exit_code = 5
  } else {
    ui.talk('Follow them with: pms batches wait ID\n')
  }
  return result
}
