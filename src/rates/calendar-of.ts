import type {RestrictionRecord} from '../contract/index.js'
import type {RunSettings} from '../run/context.js'
import type {NightRange, PropertyInfo} from './index.js'

/** Told how many calls a read takes, then each call as it ends, then the end. */
export interface CallProgress {
  tick(): void
  done(): void
}

/**
 * What `restrictions get`, `rates export` and the MCP calendar tool read: the listed Properties and
 * the calendar of those chosen (all, or the given ids checked against the listing).
 */
export async function readCalendarOf(
  run: RunSettings,
  wanted: readonly string[] | undefined,
  range: NightRange,
  progress?: (calls: number) => CallProgress,
): Promise<{properties: PropertyInfo[]; ids: string[]; records: RestrictionRecord[]}> {
  const [{createClient}, rates] = await Promise.all([import('../run/session.js'), import('./index.js')])
  const client = await createClient(run)
  try {
    const properties = await rates.loadProperties(client)
    const ids = rates.selectProperties(properties, wanted)
    const bar = progress?.(rates.splitCalendarCalls(ids, range).length)
    const records = await rates.readCalendar(client, ids, range, () => bar?.tick()).finally(() => bar?.done())
    return {properties, ids, records}
  } finally {
    await client.close()
  }
}
