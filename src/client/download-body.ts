/**
 * The body of an attachment download, checked as it streams. The contract serves the file without
 * Content-Length (chunked), cuts one that grows past 10 MB, and ends the connection early when a
 * Sales Channel transfer breaks; so a body is whole only when its framing says so (the last chunk,
 * or as many bytes as announced) and never longer than 10 MB. Anything else stops the download
 * with an error worth retrying later (75), and the caller keeps nothing of it.
 */
import {ATTACHMENT_MAX_BYTES} from '../contract/limits.js'
import {NetworkError} from './errors.js'

/** A download that stopped: a passing failure (75), like any transfer that breaks. */
export class DownloadIncompleteError extends NetworkError {
  constructor(message: string, options: {code: 'download_incomplete' | 'download_too_large'; cause?: unknown}) {
    super(message, {
      code: options.code,
      suggestion: 'nothing was saved; run the same command again later (the service cuts files over 10 MB, and a Sales Channel transfer may break)',
      cause: options.cause,
    })
  }
}

const MB = ATTACHMENT_MAX_BYTES / 1024 / 1024

/**
 * Refuses a body announced over the cap, or one with no framing at all (neither chunked nor a
 * Content-Length: only the connection's close would end it, so a cut could not be told from the
 * end), before a byte is read; then counts the bytes: past the cap, or fewer than announced, the
 * download fails. Leaving the loop early ends the transfer.
 */
export async function* checkedAttachmentBody(headers: Record<string, string | undefined>, body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const lengthHeader = headers['content-length']
  const announced = lengthHeader === undefined ? undefined : Number(lengthHeader)
  const chunked = /(^|,)\s*chunked\s*$/i.test(headers['transfer-encoding'] ?? '')
  let refused: DownloadIncompleteError | undefined
  if (announced !== undefined && announced > ATTACHMENT_MAX_BYTES) {
    refused = new DownloadIncompleteError(`The attachment is announced at ${announced} bytes, over the ${MB} MB the service serves`, {code: 'download_too_large'})
  } else if (!chunked && (announced === undefined || !Number.isSafeInteger(announced))) {
    refused = new DownloadIncompleteError('The attachment came without framing (neither chunked nor a Content-Length), so its end cannot be told from a broken transfer', {
      code: 'download_incomplete',
    })
  }
  if (refused) {
    await body[Symbol.asyncIterator]().return?.()
    throw refused
  }
  let bytes = 0
  try {
    for await (const chunk of body) {
      bytes += chunk.byteLength
      if (bytes > ATTACHMENT_MAX_BYTES) throw new DownloadIncompleteError(`The attachment runs past ${MB} MB (the service cuts such files); the download stopped`, {code: 'download_too_large'})
      yield chunk
    }
  } catch (cause) {
    if (cause instanceof DownloadIncompleteError) throw cause
    throw new DownloadIncompleteError(`The attachment download broke off after ${bytes} bytes, before the file was complete`, {code: 'download_incomplete', cause})
  }
  if (announced !== undefined && bytes !== announced) {
    throw new DownloadIncompleteError(`The attachment ended after ${bytes} of the ${announced} bytes announced`, {code: 'download_incomplete'})
  }
}
