import {parse} from 'csv-parse/sync'
import {describe, expect, it} from 'vitest'
import {CsvRecords, csvRecords} from '../../../src/text/csv-records.js'

interface Read {
  records: [line: number, cells: string[]][]
  problems: [line: number, cell: number, message: string][]
}

/** Everything the reader says of `text`, given to it in the pieces named by `cuts` (offsets). */
function read(text: string, {delimiter = ',', cuts = [] as number[]} = {}): Read {
  const out: Read = {records: [], problems: []}
  const reader = new CsvRecords(delimiter, {
    record: (cells, line) => out.records.push([line, cells]),
    problem: (line, cell, message) => out.problems.push([line, cell, message]),
  })
  let from = 0
  for (const cut of [...cuts, text.length]) {
    reader.push(text.slice(from, cut))
    from = cut
  }
  reader.end()
  return out
}

describe('CSV records', () => {
  it('reads quoted cells holding the delimiter, quotes written twice and line ends, and names the line each record starts on', () => {
    const text = 'property_id,note,rate\n"a,1","said ""hi""\nthen left",120.50\n\n\nb,,\nc,"",7'
    expect(read(text)).toEqual({
      records: [
        [1, ['property_id', 'note', 'rate']],
        [2, ['a,1', 'said "hi"\nthen left', '120.50']],
        [6, ['b', '', '']],
        [7, ['c', '', '7']],
      ],
      problems: [],
    })
  })

  it('reads the same whatever pieces the text comes in, down to one character each', () => {
    const text = 'a;"b;""c""\r\nd"\r\n\r\n"e"\r\nf;g\r\n;\n'
    const whole = read(text, {delimiter: ';'})
    expect(whole.records).toEqual([
      [1, ['a', 'b;"c"\r\nd']],
      [4, ['e']],
      [5, ['f', 'g']],
      [6, ['', '']],
    ])
    for (let cut = 1; cut < text.length; cut++) expect(read(text, {delimiter: ';', cuts: [cut]}), `cut at ${cut}`).toEqual(whole)
    expect(read(text, {delimiter: ';', cuts: Array.from({length: text.length - 1}, (_, i) => i + 1)})).toEqual(whole)
  })

  it('names a quote inside a cell not quoted, a closing quote followed by something else, and a quote never closed, by line and cell; other records are read on', () => {
    const text = 'a,b,c\n1,2"5,3\n4,"5"x,6\n7,8,9\n10,"11\n12'
    const {records, problems} = read(text)
    expect(records).toEqual([
      [1, ['a', 'b', 'c']],
      [4, ['7', '8', '9']],
    ])
    expect(problems).toEqual([
      [2, 1, expect.stringContaining('a quote in a cell that does not start with one')],
      [3, 1, expect.stringContaining('closing quote is followed by "x"')],
      [5, 1, 'the quote that opens this cell is never closed'],
    ])
  })

  it('takes a tab or a semicolon as the delimiter, and refuses a quote or a line end', () => {
    expect(read('a\tb\n"c\td"\te', {delimiter: '\t'}).records).toEqual([
      [1, ['a', 'b']],
      [2, ['c\td', 'e']],
    ])
    expect(() => new CsvRecords('"', {record: () => undefined, problem: () => undefined})).toThrow(RangeError)
    expect(() => new CsvRecords('\n', {record: () => undefined, problem: () => undefined})).toThrow(RangeError)
  })

  it('csvRecords: a whole text, its byte order mark dropped; its first problem thrown with its line', () => {
    expect(csvRecords('\uFEFFid,name\r\n1,"Ana, the guest"\r\n')).toEqual([
      {line: 1, cells: ['id', 'name']},
      {line: 2, cells: ['1', 'Ana, the guest']},
    ])
    expect(() => csvRecords('id\n"1\n')).toThrow('line 2, cell 1: the quote that opens this cell is never closed')
  })

  it('agrees with csv-parse on thousands of random texts: the same records where it reads them, a problem where it refuses', () => {
    // A small alphabet, so that quotes, delimiters and line ends meet in every order.
    const alphabet = ['a', 'b', ',', ',', '"', '"', '\n', '\n', ' ', '\r\n']
    let seed = 7
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    let agreedRecords = 0
    let agreedRefusals = 0
    for (let n = 0; n < 5000; n++) {
      const text = Array.from({length: 1 + Math.floor(random() * 24)}, () => alphabet[Math.floor(random() * alphabet.length)]).join('')
      let expected: string[][] | undefined
      try {
        expected = parse(text, {relax_column_count: true, skip_empty_lines: true, record_delimiter: ['\n', '\r\n']}) as string[][]
      } catch {
        expected = undefined
      }
      const got = read(text)
      if (expected === undefined) {
        expect(got.problems.length, JSON.stringify(text)).toBeGreaterThan(0)
        agreedRefusals++
      } else {
        expect(got, JSON.stringify(text)).toEqual({records: expect.anything(), problems: []})
        expect(got.records.map(([, cells]) => cells), JSON.stringify(text)).toEqual(expected)
        agreedRecords++
      }
    }
    // Both kinds were met many times: the comparison compared something.
    expect(agreedRecords).toBeGreaterThan(1000)
    expect(agreedRefusals).toBeGreaterThan(1000)
  })
})
