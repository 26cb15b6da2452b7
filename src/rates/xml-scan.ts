/**
 * A small XML scanner for the parts of a workbook: elements (by their local name, without a
 * namespace prefix), their attributes and their text, entities decoded, fed in chunks of any size.
 * It checks no well-formedness and knows no DTD: a workbook's parts are written by programs, and
 * what they hold is checked by what reads them.
 */

export interface XmlHandler {
  open(name: string, attributes: Record<string, string>, selfClosing: boolean): void
  close(name: string): void
  /** Text between tags (CDATA included), decoded; one run of text may come in several calls. */
  text(text: string): void
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
  const colon = s.indexOf(':', from)
  return s.slice(colon >= 0 && colon < to ? colon + 1 : from, to)
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 13
}

export class XmlScanner {
  private pending = ''
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
      // An opening tag: its name, then attributes whose quoted values may hold any character but `<`.
      let at = lt + 1
      let code = s.charCodeAt(at)
      while (at < s.length && !isSpace(code) && code !== 62 /* > */ && code !== 47 /* / */) code = s.charCodeAt(++at)
      if (at >= s.length) return i
      const name = localName(s, lt + 1, at)
      const attributes: Record<string, string> = {}
      let selfClosing = false
      let complete = false
      while (at < s.length) {
        code = s.charCodeAt(at)
        if (isSpace(code)) {
          at++
          continue
        }
        if (code === 62) {
          complete = true
          at++
          break
        }
        if (code === 47) {
          if (at + 1 >= s.length) break
          selfClosing = true
          at++
          continue
        }
        const equals = s.indexOf('=', at)
        if (equals < 0) break
        let quote = equals + 1
        while (quote < s.length && isSpace(s.charCodeAt(quote))) quote++
        if (quote >= s.length) break
        const mark = s[quote]!
        if (mark !== '"' && mark !== "'") {
          // Not XML: the rest of the tag is skipped.
          const close = s.indexOf('>', quote)
          if (close < 0) break
          at = close
          continue
        }
        const valueEnd = s.indexOf(mark, quote + 1)
        if (valueEnd < 0) break
        let nameEnd = equals
        while (nameEnd > at && isSpace(s.charCodeAt(nameEnd - 1))) nameEnd--
        attributes[s.slice(at, nameEnd)] = decodeEntities(s.slice(quote + 1, valueEnd))
        at = valueEnd + 1
      }
      if (!complete) return i
      if (lt > i) handler.text(decodeEntities(s.slice(i, lt)))
      handler.open(name, attributes, selfClosing)
      if (selfClosing) handler.close(name)
      i = at
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
