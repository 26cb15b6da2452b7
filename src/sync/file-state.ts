import {randomBytes} from 'node:crypto'
import {closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {z} from 'zod'

/**
 * Replaces `path` with `data` so that a reader, or the next run after a kill, sees the old file or
 * the new one, never a part: a temporary file beside it, flushed, then renamed over it.
 */
export function replaceFile(path: string, data: string): void {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  let renamed = false
  try {
    const fd = openSync(temporary, 'wx', 0o644)
    try {
      const bytes = Buffer.from(data)
      let written = 0
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temporary, path)
    renamed = true
  } finally {
    if (!renamed) rmSync(temporary, {force: true})
  }
}

const FileStateSchema = z.object({
  version: z.literal(1),
  /** JSONL: the length of the file once its last walk was committed; anything after it is a killed run's tail. */
  committed_bytes: z.number().int().min(0).optional(),
  cursors: z.record(z.string(), z.object({updated_since: z.string(), synced_at: z.string(), full_synced_at: z.string().nullable().optional()})),
})
export type FileState = z.infer<typeof FileStateSchema>

/** Where a file sink keeps its cursors: a JSON file beside it (`bookings.jsonl.state.json`). */
export function statePathOf(sinkPath: string): string {
  return `${sinkPath}.state.json`
}

export function readFileState(sinkPath: string): FileState {
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
  replaceFile(statePathOf(sinkPath), JSON.stringify(state, null, 2) + '\n')
}

export function cursorKey(profile: string, scope: string): string {
  return `${profile} ${scope}`
}
