// exceljs's own modules for a streamed read, loaded without the rest of the package (its types
// describe the package's entry point only).
declare module 'exceljs/lib/stream/xlsx/workbook-reader.js' {
  import type {stream} from 'exceljs'
  const WorkbookReader: typeof stream.xlsx.WorkbookReader
  export default WorkbookReader
}

declare module 'exceljs/lib/utils/parse-sax.js' {
  /** The XML of `iterable` as batches of events, one batch per chunk read. */
  export default function parseSax(iterable: AsyncIterable<unknown>): AsyncIterable<unknown[]>
}
