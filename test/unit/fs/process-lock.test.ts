import {mkdtempSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tryHoldProcessLock} from '../../../src/fs/process-lock.js'

describe('the lock a process holds while it lives', () => {
  it('is held by one holder at a time, taken again once released, and its file is for its owner only', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-lock-unit-')), 'sub', 'inbox.sqlite-lock')
    const release = await tryHoldProcessLock(path)
    expect(release).toBeDefined()
    expect(await tryHoldProcessLock(path)).toBeUndefined()
    expect(statSync(path).mode & 0o777).toBe(0o600)
    await release!()
    await release!()
    const again = await tryHoldProcessLock(path)
    expect(again).toBeDefined()
    await again!()
  })
})
