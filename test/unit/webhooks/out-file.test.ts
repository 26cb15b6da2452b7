import {mkdtempSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {OutFile} from '../../../src/webhooks/out-file.js'

const tempFile = () => join(mkdtempSync(join(tmpdir(), 'pms-out-')), 'events.jsonl')
const line = (id: string) => JSON.stringify({id, type: 'booking.created'})

describe('OutFile (--out)', () => {
  it('appends each event once, events given together in one write; a line not yet recorded done is not written again, a recorded one is (replay)', async () => {
    const path = tempFile()
    const out = await OutFile.open(path, 1000)
    await Promise.all(['a', 'b', 'c', 'b'].map((id) => out.append(id, line(id))))
    await out.append('a', line('a'))
    expect(readFileSync(path, 'utf8')).toBe(['a', 'b', 'c'].map((id) => line(id) + '\n').join(''))
    out.recorded('a')
    await out.append('a', line('a'))
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean).map((text) => (JSON.parse(text) as {id: string}).id)).toEqual(['a', 'b', 'c', 'a'])
    await out.close()
    expect(statSync(path).mode & 0o777).toBe(0o600)
  })

  it('opened again (after a kill), does not write again the events among the last lines of the file, and starts its lines on a line of their own', async () => {
    const path = tempFile()
    // A killed listener wrote a, b and c, recorded none, and was cut in the middle of d.
    writeFileSync(path, ['old', 'a', 'b', 'c'].map((id) => line(id) + '\n').join('') + '{"id":"d","ty')
    const out = await OutFile.open(path, 3)
    for (const id of ['a', 'b', 'c', 'd', 'old']) await out.append(id, line(id))
    await out.close()
    expect(readFileSync(path, 'utf8')).toBe(['old', 'a', 'b', 'c'].map((id) => line(id) + '\n').join('') + '{"id":"d","ty\n' + line('d') + '\n' + line('old') + '\n')
  })
})
