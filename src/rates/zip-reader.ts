/**
 * The parts of a zip archive on disk, found through its central directory (the list at the end of
 * the archive) rather than by reading the archive front to back: a part is read when it is asked
 * for, whatever its place in the archive, and the others are never read.
 */
import {createReadStream} from 'node:fs'
import {open} from 'node:fs/promises'
import {createInflateRaw, inflateRawSync} from 'node:zlib'

/** An archive that cannot be read: one sentence. */
export class ZipError extends Error {}

interface Part {
  method: number
  compressedSize: number
  size: number
  /** Where the part's local header starts. */
  offset: number
}

const END_OF_DIRECTORY = 0x06_05_4b_50
const ZIP64_LOCATOR = 0x07_06_4b_50
const ZIP64_END = 0x06_06_4b_50
const DIRECTORY_ENTRY = 0x02_01_4b_50
const LOCAL_HEADER = 0x04_03_4b_50
const STORED = 0
const DEFLATED = 8
/** Not a zip method: a part whose bytes are encrypted. */
const ENCRYPTED = -1
/**
 * Bytes read and inflated per chunk. 64 KiB measured fastest and leanest for a large sheet (against
 * 16 KiB to 1 MiB): a chunk's text and the cell texts cut from it stay short-lived.
 */
const CHUNK = 1 << 16

export interface ZipArchive {
  has(name: string): boolean
  /** A part whole, inflated (for the small parts: a workbook's list of sheets, its styles, its strings). */
  read(name: string): Promise<Buffer>
  /** A part as it inflates, in chunks (for a sheet, which may be larger than memory should hold). */
  stream(name: string): AsyncIterable<Buffer>
}

/** A 64-bit field as a number: archives this reader meets stay far below 2^53 bytes. */
function u64(buffer: Buffer, at: number): number {
  return Number(buffer.readBigUInt64LE(at))
}

export async function openZip(path: string): Promise<ZipArchive> {
  const handle = await open(path, 'r')
  let parts: Map<string, Part>
  try {
    parts = await directory(handle)
  } finally {
    await handle.close()
  }
  const part = (name: string): Part => {
    const found = parts.get(name)
    if (!found) throw new ZipError(`the archive has no part ${name}`)
    if (found.method === ENCRYPTED) throw new ZipError(`the part ${name} is encrypted (a workbook saved with a password): save it without one`)
    if (found.method !== STORED && found.method !== DEFLATED) throw new ZipError(`the part ${name} is compressed by method ${found.method}, which only deflate (8) and stored (0) are read`)
    return found
  }
  /** Where a part's bytes start: after its local header, whose name and extra field may differ in length from the directory's. */
  const dataStart = async (name: string, at: Part): Promise<number> => {
    const h = await open(path, 'r')
    try {
      const header = Buffer.alloc(30)
      await h.read(header, 0, 30, at.offset)
      if (header.readUInt32LE(0) !== LOCAL_HEADER) throw new ZipError(`the part ${name} is not where the archive's directory places it`)
      return at.offset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28)
    } finally {
      await h.close()
    }
  }
  return {
    has: (name) => parts.has(name),
    async read(name) {
      const at = part(name)
      const start = await dataStart(name, at)
      const h = await open(path, 'r')
      let raw: Buffer
      try {
        raw = Buffer.alloc(at.compressedSize)
        const {bytesRead} = await h.read(raw, 0, at.compressedSize, start)
        if (bytesRead < at.compressedSize) throw new ZipError(`the part ${name} is cut short`)
      } finally {
        await h.close()
      }
      return at.method === STORED ? raw : inflateRawSync(raw)
    },
    async *stream(name) {
      const at = part(name)
      const start = await dataStart(name, at)
      if (at.compressedSize === 0) return
      const source = createReadStream(path, {start, end: start + at.compressedSize - 1, highWaterMark: CHUNK})
      if (at.method === STORED) {
        yield* source as AsyncIterable<Buffer>
        return
      }
      const inflate = createInflateRaw({chunkSize: CHUNK})
      source.on('error', (error) => inflate.destroy(error))
      source.pipe(inflate)
      try {
        yield* inflate as AsyncIterable<Buffer>
      } finally {
        source.destroy()
        inflate.destroy()
      }
    },
  }
}

async function directory(handle: Awaited<ReturnType<typeof open>>): Promise<Map<string, Part>> {
  const {size} = await handle.stat()
  // The end record is 22 bytes and may be followed by a comment of at most 65,535 bytes.
  const tailSize = Math.min(size, 22 + 65_535)
  const tail = Buffer.alloc(tailSize)
  await handle.read(tail, 0, tailSize, size - tailSize)
  let end = -1
  for (let i = tailSize - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === END_OF_DIRECTORY) {
      end = i
      break
    }
  }
  if (end < 0) throw new ZipError('the archive has no directory (cut short?)')
  let count = tail.readUInt16LE(end + 10)
  let directorySize = tail.readUInt32LE(end + 12)
  let directoryOffset = tail.readUInt32LE(end + 16)
  if ((count === 0xff_ff || directorySize === 0xff_ff_ff_ff || directoryOffset === 0xff_ff_ff_ff) && end >= 20 && tail.readUInt32LE(end - 20) === ZIP64_LOCATOR) {
    const record = Buffer.alloc(56)
    await handle.read(record, 0, 56, u64(tail, end - 20 + 8))
    if (record.readUInt32LE(0) !== ZIP64_END) throw new ZipError('the archive\'s zip64 directory is not where its locator says')
    count = u64(record, 32)
    directorySize = u64(record, 40)
    directoryOffset = u64(record, 48)
  }
  if (directoryOffset + directorySize > size) throw new ZipError('the archive\'s directory lies past its end (cut short?)')
  const list = Buffer.alloc(directorySize)
  await handle.read(list, 0, directorySize, directoryOffset)
  const parts = new Map<string, Part>()
  let at = 0
  for (let n = 0; n < count; n++) {
    if (at + 46 > list.length || list.readUInt32LE(at) !== DIRECTORY_ENTRY) throw new ZipError('the archive\'s directory is damaged')
    const flags = list.readUInt16LE(at + 8)
    const nameLength = list.readUInt16LE(at + 28)
    const extraLength = list.readUInt16LE(at + 30)
    const commentLength = list.readUInt16LE(at + 32)
    // Part names of a workbook are ASCII; bit 11 marks UTF-8, and the old code page agrees on ASCII.
    const name = list.toString(flags & 0x08_00 ? 'utf8' : 'latin1', at + 46, at + 46 + nameLength)
    const part: Part = {method: list.readUInt16LE(at + 10), compressedSize: list.readUInt32LE(at + 20), size: list.readUInt32LE(at + 24), offset: list.readUInt32LE(at + 42)}
    zip64Sizes(list.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength), part)
    if (flags & 0x00_01) part.method = ENCRYPTED
    parts.set(name, part)
    at += 46 + nameLength + extraLength + commentLength
  }
  return parts
}

/** The 64-bit sizes and offset of the zip64 extra field, for each 32-bit field that is all ones. */
function zip64Sizes(extra: Buffer, part: Part): void {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at)
    const length = extra.readUInt16LE(at + 2)
    if (id === 0x00_01) {
      let field = at + 4
      for (const key of ['size', 'compressedSize', 'offset'] as const) {
        if (part[key] !== 0xff_ff_ff_ff) continue
        if (field + 8 > at + 4 + length) break
        part[key] = u64(extra, field)
        field += 8
      }
      return
    }
    at += 4 + length
  }
}
