import {describe, expect, it} from 'vitest'
import {confirm} from '../../../src/cli/confirm.js'
import {bufferIo} from '../../../src/cli/io.js'
import {createProgress, etaText} from '../../../src/cli/progress.js'

describe('progress', () => {
  it('draws nothing when stderr is not a terminal', () => {
    const {io, stderr} = bufferIo({stderrIsTTY: false})
    const progress = createProgress(io, {total: 3, label: 'batches'})
    progress.tick()
    progress.done()
    expect(stderr()).toBe('')
  })

  it('draws a bar with counts on a terminal', () => {
    const {io, stderr} = bufferIo({stderrIsTTY: true})
    const progress = createProgress(io, {total: 4, label: 'batches'})
    progress.tick(2)
    expect(stderr()).toContain('2/4')
  })

  it('estimates the time left from the pace so far', () => {
    expect(etaText(0, 10_000, 1, 3)).toBe(' ~20s left')
    expect(etaText(0, 60_000, 1, 3)).toBe(' ~2m00s left')
    expect(etaText(0, 0, 0, 3)).toBe('')
  })
})

describe('confirmation', () => {
  it('off a terminal without --yes refuses and names the flag', async () => {
    const {io} = bufferIo()
    await expect(confirm(io, 'Submit 3 batches?', {yes: false})).rejects.toMatchObject({exitCode: 2, suggestion: expect.stringContaining('--yes')})
  })

  it('--yes answers without asking', async () => {
    const {io} = bufferIo()
    await expect(confirm(io, 'Submit?', {yes: true})).resolves.toBe(true)
  })
})
