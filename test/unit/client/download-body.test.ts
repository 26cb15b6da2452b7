import {describe, expect, it} from 'vitest'
import {checkedAttachmentBody, DownloadIncompleteError} from '../../../src/client/download-body.js'

const MB = 1024 * 1024

/** A body of `chunks` chunks of `size` bytes that records how many were pulled. */
function body(chunks: number, size: number) {
  const state = {pulled: 0, closed: false}
  const iterable: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => (state.pulled < chunks ? (state.pulled++, {done: false, value: new Uint8Array(size)}) : {done: true, value: undefined}),
      return: async () => {
        state.closed = true
        return {done: true, value: undefined}
      },
    }),
  }
  return {iterable, state}
}

const read = async (stream: AsyncIterable<Uint8Array>) => {
  let bytes = 0
  for await (const chunk of stream) bytes += chunk.byteLength
  return bytes
}

describe('an attachment body, checked as it streams', () => {
  it('a chunked body up to 10 MB, or one of exactly its Content-Length, is whole', async () => {
    expect(await read(checkedAttachmentBody({'transfer-encoding': 'chunked'}, body(10, MB).iterable))).toBe(10 * MB)
    expect(await read(checkedAttachmentBody({'content-length': '300'}, body(3, 100).iterable))).toBe(300)
  })

  it('past 10 MB the download stops (75, download_too_large) without reading on', async () => {
    const {iterable, state} = body(40, MB)
    const error = await read(checkedAttachmentBody({'transfer-encoding': 'chunked'}, iterable)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DownloadIncompleteError)
    expect(error).toMatchObject({code: 'download_too_large', exitCode: 75})
    expect(state.pulled).toBe(11)
    expect(state.closed).toBe(true)
  })

  it('announced over 10 MB, it is refused before a byte is read', async () => {
    const {iterable, state} = body(1, 10)
    await expect(read(checkedAttachmentBody({'content-length': String(11 * MB)}, iterable))).rejects.toMatchObject({code: 'download_too_large', exitCode: 75})
    expect(state.pulled).toBe(0)
  })

  it('shorter than announced, it fails (download_incomplete)', async () => {
    await expect(read(checkedAttachmentBody({'content-length': '500'}, body(3, 100).iterable))).rejects.toMatchObject({code: 'download_incomplete', exitCode: 75})
  })

  it('without framing (neither chunked nor a length) its end cannot be told from a cut: refused', async () => {
    const {iterable, state} = body(3, 100)
    await expect(read(checkedAttachmentBody({}, iterable))).rejects.toMatchObject({code: 'download_incomplete', exitCode: 75, message: expect.stringContaining('without framing')})
    expect(state.pulled).toBe(0)
    expect(state.closed).toBe(true)
  })

  it('a transfer that breaks is download_incomplete, with the bytes read so far', async () => {
    const broken: AsyncIterable<Uint8Array> = {
      async *[Symbol.asyncIterator]() {
        yield new Uint8Array(7)
        throw new Error('other side closed')
      },
    }
    await expect(read(checkedAttachmentBody({'transfer-encoding': 'chunked'}, broken))).rejects.toMatchObject({code: 'download_incomplete', message: expect.stringContaining('after 7 bytes')})
  })
})
