/**
 * Attachments go to disk through a temporary file in the target's directory, put into place
 * only once the whole body came: a transfer that breaks (or a file over 10 MB that the service
 * cuts off) leaves no partial file behind. A file of the same name is replaced only when asked:
 * otherwise the temporary file is hard-linked into place, which fails rather than replace one
 * that appeared meanwhile.
 */
import {createWriteStream} from 'node:fs'
import {link, rename, rm, stat} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import {Readable} from 'node:stream'
import {pipeline} from 'node:stream/promises'

/** `path` exists already and was not to be replaced: nothing was written. */
export class FileExistsError extends Error {
  constructor(readonly path: string) {
    super(`${path} exists already`)
  }
}

/**
 * Writes the stream to `path`; answers the bytes written. Throws (and leaves nothing) when the
 * stream fails, and FileExistsError when `path` exists unless `replace`.
 */
export async function streamToFile(body: AsyncIterable<Uint8Array>, path: string, options: {replace?: boolean} = {}): Promise<number> {
  const temp = join(dirname(path), `.${basename(path)}.${process.getBuiltinModule('node:crypto').randomBytes(6).toString('hex')}.part`)
  let bytes = 0
  const counted = async function* () {
    for await (const chunk of body) {
      bytes += chunk.byteLength
      yield chunk
    }
  }
  try {
    await pipeline(Readable.from(counted()), createWriteStream(temp, {mode: 0o600}))
    if (options.replace) await rename(temp, path)
    else await placeNew(temp, path)
  } catch (error) {
    await rm(temp, {force: true})
    throw error
  }
  return bytes
}

async function placeNew(temp: string, path: string): Promise<void> {
  try {
    await link(temp, path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') throw new FileExistsError(path)
    // A file system without hard links: checked, then renamed (a file that appears in between is replaced).
    if (await stat(path).then(() => true, () => false)) throw new FileExistsError(path)
    await rename(temp, path)
    return
  }
  await rm(temp, {force: true})
}
