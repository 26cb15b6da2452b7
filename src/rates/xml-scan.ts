/**
 * A small XML scanner for the parts of a workbook: elements (by their local name, without a
 * namespace prefix), their attributes and their text, entities decoded, fed in chunks of any size.
 * It checks no well-formedness and knows no DTD: a workbook's parts are written by programs, and
 * what they hold is checked by what reads them.
 */

export interface XmlHandler {
  open(name: string, attributes: Attributes, selfClosing: boolean): void
  close(name: string): void
  /** Text between tags (CDATA included), decoded; one run of text may come in several calls. */
  text(text: string): void
}

/**
 * The attributes of the tag just opened, read when asked for (a sheet's cells have attributes
 * nobody reads): valid only during the call to `open`.
 */
export class Attributes {
  private s = ''
  private from = 0
  private to = 0

  /** @internal */
  at(s: string, from: number, to: number): this {
    this.s = s
    this.from = from
    this.to = to
    return this
  }

  /** The value of the attribute named `name` as written (`r:id`, `xml:space`), decoded. */
  get(name: string): string | undefined {
    const s = this.s
    for (let at = this.next(this.from); at >= 0; at = this.next(this.valueEnd + 1)) {
      if (this.nameEnd - at === name.length && s.startsWith(name, at)) return decodeEntities(s.slice(this.valueStart, this.valueEnd))
    }
    return undefined
  }

  /** The values of the attributes named in `names`, into `values` at the same index (undefined where absent): one pass over the tag. */
  getEach(names: readonly string[], values: (string | undefined)[]): void {
    values.fill(undefined)
    const s = this.s
    for (let at = this.next(this.from); at >= 0; at = this.next(this.valueEnd + 1)) {
      const length = this.nameEnd - at
      for (let n = 0; n < names.length; n++) {
        const name = names[n]!
        if (length === name.length && s.startsWith(name, at)) {
          values[n] = decodeEntities(s.slice(this.valueStart, this.valueEnd))
          break
        }
      }
    }
  }

  /** Every attribute by name. */
  all(): Record<string, string> {
    const all: Record<string, string> = {}
    for (let at = this.next(this.from); at >= 0; at = this.next(this.valueEnd + 1)) all[this.s.slice(at, this.nameEnd)] = decodeEntities(this.s.slice(this.valueStart, this.valueEnd))
    return all
  }

  private nameEnd = 0
  private valueStart = 0
  private valueEnd = 0

  /** Where the next attribute's name starts at or after `at` (its name's end and its value in the fields), or -1. */
  private next(at: number): number {
    const s = this.s
    while (at < this.to && isSpace(s.charCodeAt(at))) at++
    const equals = s.indexOf('=', at)
    if (equals < 0 || equals >= this.to) return -1
    let nameEnd = equals
    while (nameEnd > at && isSpace(s.charCodeAt(nameEnd - 1))) nameEnd--
    let quote = equals + 1
    while (quote < this.to && isSpace(s.charCodeAt(quote))) quote++
    const mark = s.charCodeAt(quote)
    if (mark !== 34 && mark !== 39) return -1
    const valueEnd = s.indexOf(mark === 34 ? '"' : "'", quote + 1)
    if (valueEnd < 0 || valueEnd >= this.to) return -1
    this.nameEnd = nameEnd
    this.valueStart = quote + 1
    this.valueEnd = valueEnd
    return at
  }
}

const NAMED: Record<string, string> = {amp: '&', lt: '<', gt: '>', quot: '"', apos: "'"}

/** Text with its entities (`&amp;`, `&#10;`, `&#x263A;`) replaced by what they stand for; an unknown one is left as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text
  return text.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, body: string) => {
    if (body[0] !== '#') return NAMED[body] ?? whole
    const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10)
    return code <= 0x10_ff_ff ? String.fromCodePoint(code) : whole
  })
}

function localName(s: string, from: number, to: number): string {
  const name = s.slice(from, to)
  const colon = name.indexOf(':')
  return colon < 0 ? name : name.slice(colon + 1)
}

/**
 * Where the tag whose attributes start at `at` ends (its `>`), past quoted values that may hold a
 * `>`; -1 when the tag is not all in `s` yet.
 */
function tagEnd(s: string, at: number): number {
  let quote = 0
  for (let i = at; i < s.length; i++) {
    const code = s.charCodeAt(i)
    if (quote !== 0) {
      if (code === quote) quote = 0
    } else if (code === 34 || code === 39) quote = code
    else if (code === 62) return i
  }
  return -1
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 13
}

export class XmlScanner {
  private pending = ''
  private readonly attributes = new Attributes()
  /** Set (by the handler) to read no further. */
  stopped = false

  constructor(private readonly handler: XmlHandler) {}

  write(chunk: string): void {
    if (this.stopped) return
    const s = this.pending.length === 0 ? chunk : this.pending + chunk
    this.pending = s.slice(this.scan(s))
  }

  /** The text after the last tag is outside every element: nothing to hand on. */
  end(): void {
    this.pending = ''
  }

  /** Hands on every whole tag and the text before it; where the unread rest (an unfinished tag or text) starts. */
  private scan(s: string): number {
    const handler = this.handler
    let i = 0
    while (!this.stopped) {
      const lt = s.indexOf('<', i)
      if (lt < 0) return i
      const next = s.charCodeAt(lt + 1)
      if (Number.isNaN(next)) return i
      if (next === 33 /* ! */) {
        if (s.startsWith('<![CDATA[', lt)) {
          const close = s.indexOf(']]>', lt + 9)
          if (close < 0) return i
          if (lt > i) handler.text(decodeEntities(s.slice(i, lt)))
          handler.text(s.slice(lt + 9, close))
          i = close + 3
          continue
        }
        const close = s.startsWith('<!--', lt) ? s.indexOf('-->', lt + 4) : s.indexOf('>', lt + 2)
        if (close < 0) return i
        if (lt > i) handler.text(decodeEntities(s.slice(i, lt)))
        i = close + (s.startsWith('<!--', lt) ? 3 : 1)
        continue
      }
      if (next === 63 /* ? */) {
        const close = s.indexOf('?>', lt + 2)
        if (close < 0) return i
        i = close + 2
        continue
      }
      if (next === 47 /* / */) {
        const close = s.indexOf('>', lt + 2)
        if (close < 0) return i
        if (lt > i) handler.text(decodeEntities(s.slice(i, lt)))
        let nameEnd = close
        while (nameEnd > lt + 2 && isSpace(s.charCodeAt(nameEnd - 1))) nameEnd--
        handler.close(localName(s, lt + 2, nameEnd))
        i = close + 1
        continue
      }
      // An opening tag: its name, then its attributes (read when asked for).
      let at = lt + 1
      let code = s.charCodeAt(at)
      while (at < s.length && !isSpace(code) && code !== 62 /* > */ && code !== 47 /* / */) code = s.charCodeAt(++at)
      const end = tagEnd(s, at)
      if (end < 0) return i
      const selfClosing = s.charCodeAt(end - 1) === 47
      if (lt > i) handler.text(decodeEntities(s.slice(i, lt)))
      const name = localName(s, lt + 1, at)
      handler.open(name, this.attributes.at(s, at, selfClosing ? end - 1 : end), selfClosing)
      if (selfClosing) handler.close(name)
      i = end + 1
    }
    return i
  }
}

/** A whole part, scanned at once. */
export function scanXml(xml: string, handler: XmlHandler): void {
  const scanner = new XmlScanner(handler)
  scanner.write(xml)
  scanner.end()
}
