import {crc32, deflateRawSync} from 'node:zlib'

/**
 * A zip archive of `parts` in the order given (deflated; no data descriptors): a workbook whose
 * parts come in any order, as a writer other than Excel may store them.
 */
export function zipParts(parts: [name: string, text: string][]): Buffer {
  const locals: Buffer[] = []
  const directory: Buffer[] = []
  let offset = 0
  for (const [name, text] of parts) {
    const data = Buffer.from(text)
    const packed = deflateRawSync(data)
    const nameBytes = Buffer.from(name)
    const crc = crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04_03_4b_50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(0x08_00, 6)
    local.writeUInt16LE(8, 8)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(packed.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(nameBytes.length, 26)
    const entry = Buffer.alloc(46)
    entry.writeUInt32LE(0x02_01_4b_50, 0)
    entry.writeUInt16LE(20, 4)
    entry.writeUInt16LE(20, 6)
    entry.writeUInt16LE(0x08_00, 8)
    entry.writeUInt16LE(8, 10)
    entry.writeUInt32LE(crc, 16)
    entry.writeUInt32LE(packed.length, 20)
    entry.writeUInt32LE(data.length, 24)
    entry.writeUInt16LE(nameBytes.length, 28)
    entry.writeUInt32LE(offset, 42)
    locals.push(local, nameBytes, packed)
    directory.push(entry, nameBytes)
    offset += 30 + nameBytes.length + packed.length
  }
  const size = directory.reduce((sum, b) => sum + b.length, 0)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06_05_4b_50, 0)
  end.writeUInt16LE(parts.length, 8)
  end.writeUInt16LE(parts.length, 10)
  end.writeUInt32LE(size, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, ...directory, end])
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
const RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'

/** The parts of a workbook around its sheets, each sheet `[tab name, part number, sheetData XML]` in tab order. */
export function workbookParts(sheets: [name: string, part: number, rows: string][], options: {sharedStrings?: string; styles?: string; date1904?: boolean} = {}) {
  const rels = sheets.map(([, part]) => `<Relationship Id="rId${part}" Type="${RELS}/worksheet" Target="worksheets/sheet${part}.xml"/>`)
  rels.push(`<Relationship Id="rIdS" Type="${RELS}/sharedStrings" Target="sharedStrings.xml"/>`, `<Relationship Id="rIdT" Type="${RELS}/styles" Target="styles.xml"/>`)
  return {
    contentTypes: ['[Content_Types].xml', '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'] as [string, string],
    rootRels: ['_rels/.rels', `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`] as [string, string],
    workbookRels: ['xl/_rels/workbook.xml.rels', `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.join('')}</Relationships>`] as [string, string],
    workbook: [
      'xl/workbook.xml',
      `<?xml version="1.0"?><workbook xmlns="${MAIN}" xmlns:r="${RELS}"><workbookPr${options.date1904 ? ' date1904="1"' : ''}/><sheets>${sheets.map(([name, part], i) => `<sheet name="${name}" sheetId="${i + 1}" r:id="rId${part}"/>`).join('')}</sheets></workbook>`,
    ] as [string, string],
    sharedStrings: ['xl/sharedStrings.xml', `<?xml version="1.0"?><sst xmlns="${MAIN}">${options.sharedStrings ?? ''}</sst>`] as [string, string],
    styles: ['xl/styles.xml', `<?xml version="1.0"?><styleSheet xmlns="${MAIN}">${options.styles ?? '<cellXfs count="1"><xf numFmtId="0"/></cellXfs>'}</styleSheet>`] as [string, string],
    sheets: sheets.map(([, part, rows]): [string, string] => [`xl/worksheets/sheet${part}.xml`, `<?xml version="1.0"?><worksheet xmlns="${MAIN}"><sheetData>${rows}</sheetData></worksheet>`]),
  }
}
