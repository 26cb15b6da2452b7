/**
 * The rates feature's entry for a run of a profile: `rates import`, `restrictions set` and the MCP
 * tools `preview_rates` and `apply_rates` all come here with a plan source and a UI, and get the
 * typed result back. The profile's client (its waits for the write limit routed to the current
 * phase's progress), the Property listing, the attempt journal of the profile, then applyPlan.
 */
import type {ApplyOptions, ApplyResult, ApplyUi, PacingSignal} from './apply.js'
import type {Plan} from './planner.js'
import type {PropertyInfo} from './store.js'
import type {RunSettings} from '../run/context.js'

export interface RatesRunOptions extends Pick<ApplyOptions, 'dryRun' | 'preview' | 'wait' | 'resubmit' | 'confirmed' | 'keepChanges' | 'waitTimeoutMs' | 'watchInterrupt'> {
  /** Turns the plan's input into a plan, once the Properties (scope, names, time zones) are known. */
  plan: (properties: PropertyInfo[]) => Promise<Plan> | Plan
  /** The client waits this long for the read limit (other runs of the profile spent it). */
  onReadWait?: (ms: number) => void
}

/**
 * Lists the Properties, plans, then previews and (unless a dry run) submits and follows: each
 * attempt under a key kept in the profile's journal, so that the next run recovers one whose
 * answer was lost instead of submitting it twice.
 */
export async function runRates(ctx: RunSettings, options: RatesRunOptions, ui: ApplyUi): Promise<ApplyResult> {
  const [{createClient}, {applyPlan}, {loadProperties}] = await Promise.all([import('../run/session.js'), import('./apply.js'), import('./service.js')])
  const pacing: PacingSignal = {}
  const client = await createClient(ctx, {
    onPacingWait: (limitClass, ms) => {
      if (limitClass === 'write') pacing.listener?.(ms)
      else if (limitClass === 'read') options.onReadWait?.(ms)
    },
  })
  try {
    const properties = await loadProperties(client)
    const plan = await options.plan(properties)
    const profile = ctx.profile ?? 'default'
    const {AttemptJournal, attemptsPath} = await import('../attempts/journal.js')
    const journal = options.dryRun
      ? undefined
      : await AttemptJournal.open(attemptsPath(ctx.configDir, profile, 'rates'), ctx.clock.now(), {
          onUnsaved: (reason) => ui.talk(`Warning: ${reason}; a run stopped now cannot be recovered by the next one, which may submit its batches again.\n`),
        })
    return await applyPlan(
      client,
      plan,
      {
        dryRun: options.dryRun,
        preview: options.preview,
        wait: options.wait,
        connectionKey: `${client.baseUrl}#${profile}`,
        profile: ctx.profile,
        resubmit: options.resubmit,
        confirmed: options.confirmed,
        clock: ctx.clock,
        keepChanges: options.keepChanges,
        journal,
        waitTimeoutMs: options.waitTimeoutMs,
        watchInterrupt: options.watchInterrupt,
        pacing,
      },
      ui,
    )
  } finally {
    await client.close()
  }
}
