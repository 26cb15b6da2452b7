/**
 * A file's bytes in chunks, read with readSync. A read stream (createReadStream) brings fs's
 * promises, and through them readline, into the process: about 3 ms of a command that reads one
 * CSV file. Between chunks the event loop turns once, so that signals (Ctrl-C) and timers are
 * seen while a large file is read, as they would be with a stream.
 */
import {closeSync, openSync, readSync} from 'node:fs'

const CHUNK_BYTES = 64 * 1024

export async function* fileChunks(path: string): AsyncGenerator<Buffer> {
  const fd = openSync(path, 'r')
  try {
    for (;;) {
      const buffer = Buffer.allocUnsafe(CHUNK_BYTES)
      const read = readSync(fd, buffer, 0, CHUNK_BYTES, null)
      if (read === 0) return
      yield buffer.subarray(0, read)
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
  } finally {
    closeSync(fd)
  }
}
