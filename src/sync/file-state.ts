import {existsSync, readFileSync, statSync} from 'node:fs'
import {z} from 'zod'
import {writeFileAtomicSync} from '../fs/atomic-write.js'
import {SinkInvalidError} from './errors.js'

const FileStateSchema = z.object({
  version: z.literal(1),
  /** JSONL: the length of the file once its last walk was committed; anything after it is a killed run's tail. */
  committed_bytes: z.number().int().min(0).optional(),
  cursors: z.record(z.string(), z.object({updated_since: z.string(), synced_at: z.string(), full_synced_at: z.string().nullable().optional()})),
  /** Per key (profile or --account): the Property ids the last run saw, to tell the account by (sync/account.ts). */
  accounts: z.record(z.string(), z.object({property_ids: z.array(z.string()), seen_at: z.string()})).optional(),
})
export type FileState = z.infer<typeof FileStateSchema>

/** Where a file sink keeps its cursors: a JSON file beside it (`bookings.jsonl.state.json`). */
export function statePathOf(sinkPath: string): string {
  return `${sinkPath}.state.json`
}

function readFileState(sinkPath: string): FileState {
  let text: string
  try {
    text = readFileSync(statePathOf(sinkPath), 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {version: 1, cursors: {}}
    throw error
  }
  const parsed = FileStateSchema.safeParse(JSON.parse(text))
  if (!parsed.success) throw new Error(`${statePathOf(sinkPath)} is not a sync state pms can read`)
  return parsed.data
}

export function writeFileState(sinkPath: string, state: FileState): void {
  // Readable like the sink beside it, which other tools read.
  writeFileAtomicSync(statePathOf(sinkPath), JSON.stringify(state, null, 2) + '\n', {mode: 0o644})
}

/**
 * The account records of a file sink (sync/account.ts): the Property ids recorded under a key in
 * the state, and those of the key's rows (`rowProperties`).
 */
export function fileAccountRecords(sinkPath: string, state: FileState, rowProperties: (key: string) => Iterable<string | null>) {
  return {
    async knownProperties(key: string): Promise<string[]> {
      const ids = new Set(state.accounts?.[key]?.property_ids)
      for (const id of rowProperties(key)) if (id) ids.add(id)
      return [...ids]
    },
    async recordProperties(key: string, propertyIds: readonly string[], at: string): Promise<void> {
      state.accounts = {...state.accounts, [key]: {property_ids: [...propertyIds], seen_at: at}}
      writeFileState(sinkPath, state)
    },
  }
}

export function cursorKey(profile: string, scope: string): string {
  return `${profile} ${scope}`
}

/**
 * The state of a JSONL or CSV sink, read before the file is touched. A non-empty file with no state
 * beside it was not written by the sync and is refused rather than overwritten; a new file gets its
 * empty state at once, so that a run killed before its first cursor still leaves a file it owns.
 */
export function openFileState(sinkPath: string): FileState {
  const known = existsSync(statePathOf(sinkPath))
  if (!known && existsSync(sinkPath) && statSync(sinkPath).size > 0) {
    throw new SinkInvalidError(`${sinkPath} was not written by pms bookings sync (no ${statePathOf(sinkPath)} beside it)`, 'choose a new file for --to, or move this one away')
  }
  let state: FileState
  try {
    state = readFileState(sinkPath)
  } catch (error) {
    throw new SinkInvalidError(`Cannot read the sync state ${statePathOf(sinkPath)}: ${(error as Error).message}`, 'move the file and its state away and run again with a new --to file', error)
  }
  if (!known) writeFileState(sinkPath, state)
  return state
}
