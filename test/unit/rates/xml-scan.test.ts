import {describe, expect, it} from 'vitest'
import {decodeEntities, scanXml, XmlScanner} from '../../../src/rates/xml-scan.js'

/** Every event of the scanner, as one line each; runs of text joined as they would be read. */
function events(feed: (scanner: XmlScanner) => void): string[] {
  const seen: string[] = []
  const scanner = new XmlScanner({
    open: (name, attributes, selfClosing) => seen.push(`<${name} ${JSON.stringify(attributes.all())}${selfClosing ? '/' : ''}>`),
    close: (name) => seen.push(`</${name}>`),
    text: (text) => {
      if (seen.at(-1)?.startsWith('text:')) seen[seen.length - 1] += text
      else seen.push(`text:${text}`)
    },
  })
  feed(scanner)
  scanner.end()
  return seen
}

const XML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<x:sst xmlns:x="urn:x" count='2'><!-- a comment with <tags> -->
<x:si><x:t xml:space="preserve"> a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos; &#10;&#x263A; &unknown; </x:t></x:si>
<c r="A1" a = "x &gt; y" b='1/2'/><v><![CDATA[<raw> & text]]></v ></x:sst>`

describe('the XML scanner', () => {
  it('reads elements by their local name, attributes with either quote, entities, CDATA, and skips comments and declarations', () => {
    expect(events((s) => s.write(XML))).toEqual([
      // Text outside the root element is handed on as any other: what reads it ignores it.
      'text:\n',
      '<sst {"xmlns:x":"urn:x","count":"2"}>',
      'text:\n',
      '<si {}>',
      '<t {"xml:space":"preserve"}>',
      'text: a & b <c> "d" \'e\' \n☺ &unknown; ',
      '</t>',
      '</si>',
      'text:\n',
      '<c {"r":"A1","a":"x > y","b":"1/2"}/>',
      '</c>',
      '<v {}>',
      'text:<raw> & text',
      '</v>',
      '</sst>',
    ])
  })

  it('gives the same events when the XML comes one character at a time', () => {
    expect(events((s) => [...XML].forEach((char) => s.write(char)))).toEqual(events((s) => s.write(XML)))
  })

  it('reads the attributes asked for in one pass, whatever their order, undefined where absent', () => {
    const values: (string | undefined)[] = ['stale']
    scanXml(`<c t="s" r='B2' xr:uid="{1}"/>`, {
      open: (_name, attributes) => attributes.getEach(['r', 's', 't'], values),
      close: () => {},
      text: () => {},
    })
    expect(values).toEqual(['B2', undefined, 's'])
  })

  it('stops where the handler says', () => {
    const seen: string[] = []
    const scanner: XmlScanner = new XmlScanner({
      open: (name) => {
        seen.push(name)
        if (name === 'b') scanner.stopped = true
      },
      close: () => {},
      text: () => {},
    })
    scanner.write('<a><b/><c/></a>')
    expect(seen).toEqual(['a', 'b'])
  })

  it('decodes numeric and named entities and leaves unknown ones as written', () => {
    expect(decodeEntities('1 &lt; 2 &amp;&amp; &#x1F600; &#65; &nbsp;')).toBe('1 < 2 && 😀 A &nbsp;')
    let text = ''
    scanXml('<t>&#13;&#10;</t>', {open: () => {}, close: () => {}, text: (t) => (text += t)})
    expect(text).toBe('\r\n')
  })
})
