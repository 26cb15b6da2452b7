/**
 * What a file of rates holds, told from its first bytes rather than its name: a workbook (.xlsx, a
 * zip archive), an old binary workbook (.xls), or text (CSV). Apart from the workbook reader, so
 * that reading a CSV file loads none of it.
 */
import {closeSync, openSync, readSync} from 'node:fs'

/** Every .xlsx is a zip archive, which starts with these bytes. */
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04]
/** An old binary workbook (.xls) is an OLE compound file. */
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0]

export type FileKind = 'zip' | 'xls' | 'text'

/** What a file holds, from its first bytes. */
export function kindOf(head: Uint8Array): FileKind {
  const starts = (magic: number[]) => magic.every((byte, i) => head[i] === byte)
  if (starts(ZIP_MAGIC)) return 'zip'
  if (starts(OLE_MAGIC)) return 'xls'
  return 'text'
}

/** The kind of the file at `path`, read from its first four bytes (synchronously: four bytes are no wait). */
export function fileKind(path: string): FileKind {
  const fd = openSync(path, 'r')
  try {
    const head = Buffer.alloc(4)
    return kindOf(head.subarray(0, readSync(fd, head, 0, 4, 0)))
  } finally {
    closeSync(fd)
  }
}
