/**
 * `--out FILE`: each event appended as one JSON line, by the inbox's worker like the rest of the
 * work, so that a write that fails (a full disk) is tried again rather than lost. A line counts only
 * once it is on the disk (fsync), and it is written once:
 * - a write that fails is cut back off the file, so the next try starts on a clean line;
 * - a line written whose event the inbox did not hear done (the store failed just then) is not
 *   written again when the event comes back in this process;
 * - after a kill between the write and its record, the lines at the end of the file are read when
 *   the listener starts, and their events are not written again.
 * Writes that come together share one write and one fsync.
 */
import {open, type FileHandle} from 'node:fs/promises'

/** How far back from the end the file is read at start: the lines of the work a killed listener had under way. */
const TAIL_BYTES = 1024 * 1024

interface Pending {
  id: string
  line: string
  written(): void
  failed(error: unknown): void
}

export class OutFile {
  private queue: Pending[] = []
  private writing: Promise<void> | undefined

  private constructor(
    private readonly file: FileHandle,
    /** Events whose line is in the file but whose work the inbox has not recorded as done. */
    private readonly unrecorded: Set<string>,
  ) {}

  /** Opens (or creates) the file; `lastLines` of its end name events already written. */
  static async open(path: string, lastLines: number): Promise<OutFile> {
    const file = await open(path, 'a+', 0o600)
    try {
      return new OutFile(file, await lastIds(file, lastLines))
    } catch (error) {
      await file.close()
      throw error
    }
  }

  /** Appends the event's line (once), durably; rejects when it could not be written, and then the file is as before. */
  append(id: string, eventJson: string): Promise<void> {
    if (this.unrecorded.has(id)) return Promise.resolve()
    return new Promise((written, failed) => {
      this.queue.push({id, line: eventJson + '\n', written, failed})
      this.writing ??= this.flush()
    })
  }

  /** The inbox recorded the event done: a replay of it writes its line again. */
  recorded(id: string): void {
    this.unrecorded.delete(id)
  }

  async close(): Promise<void> {
    while (this.writing !== undefined) await this.writing
    await this.file.close()
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0)
      const fresh = new Map<string, Pending>()
      for (const item of batch) if (!this.unrecorded.has(item.id) && !fresh.has(item.id)) fresh.set(item.id, item)
      try {
        await this.write([...fresh.values()].map((item) => item.line).join(''))
        for (const id of fresh.keys()) this.unrecorded.add(id)
        for (const item of batch) item.written()
      } catch (error) {
        for (const item of batch) item.failed(error)
      }
    }
    this.writing = undefined
  }

  private async write(text: string): Promise<void> {
    if (text === '') return
    const {size} = await this.file.stat()
    // A line cut short by a kill stays as it is; ours start on a line of their own.
    const bytes = Buffer.from((size > 0 && (await lastByte(this.file, size)) !== 0x0a ? '\n' : '') + text, 'utf8')
    try {
      let done = 0
      while (done < bytes.length) done += (await this.file.write(bytes, done, bytes.length - done)).bytesWritten
      await this.file.datasync()
    } catch (error) {
      await this.file.truncate(size).catch(() => undefined)
      throw error
    }
  }
}

async function lastByte(file: FileHandle, size: number): Promise<number> {
  const byte = Buffer.alloc(1)
  await file.read(byte, 0, 1, size - 1)
  return byte[0]!
}

/** The ids of the last `count` whole lines of the file. */
async function lastIds(file: FileHandle, count: number): Promise<Set<string>> {
  const {size} = await file.stat()
  const start = Math.max(0, size - TAIL_BYTES)
  const tail = Buffer.alloc(size - start)
  if (tail.length > 0) await file.read(tail, 0, tail.length, start)
  const lines = tail.toString('utf8').split('\n')
  // The first piece may be the end of a longer line; the last one is not a whole line (or empty).
  const whole = lines.slice(start === 0 ? 0 : 1, -1).slice(-count)
  const ids = new Set<string>()
  for (const line of whole) {
    try {
      const id = (JSON.parse(line) as {id?: unknown}).id
      if (typeof id === 'string') ids.add(id)
    } catch {
      // Not a line of ours.
    }
  }
  return ids
}
