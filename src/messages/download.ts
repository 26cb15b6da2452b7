/**
 * Attachments go to disk through a temporary file in the target's directory, renamed into place
 * only once the whole body came: a transfer that breaks (or a file over 10 MB that the service
 * cuts off) leaves no partial file behind.
 */
import {randomBytes} from 'node:crypto'
import {createWriteStream} from 'node:fs'
import {rename, rm} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import {Readable} from 'node:stream'
import {pipeline} from 'node:stream/promises'

/** Writes the stream to `path`; answers the bytes written. Throws (and leaves nothing) when the stream fails. */
export async function streamToFile(body: AsyncIterable<Uint8Array>, path: string): Promise<number> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.part`)
  let bytes = 0
  const counted = async function* () {
    for await (const chunk of body) {
      bytes += chunk.byteLength
      yield chunk
    }
  }
  try {
    await pipeline(Readable.from(counted()), createWriteStream(temp, {mode: 0o600}))
    await rename(temp, path)
  } catch (error) {
    await rm(temp, {force: true})
    throw error
  }
  return bytes
}
