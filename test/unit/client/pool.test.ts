import {describe, expect, it} from 'vitest'
import {PmsError} from '../../../src/errors.js'
import type {HttpPool} from '../../../src/client/http.js'
import {Pool} from '../../../src/client/pool.js'

/** A stand-in HTTP pool that counts its closes: the pool only makes, hands out and closes it. */
function fakeDispatcher(): HttpPool & {closes: number} {
  const fake = {
    closes: 0,
    async close() {
      fake.closes += 1
    },
  }
  return fake as unknown as HttpPool & {closes: number}
}

describe('the connection pool, made with the first request', () => {
  it('concurrent first requests share one pool, closed once however often close is called', async () => {
    const made: Array<HttpPool & {closes: number}> = []
    const pool = new Pool(async () => {
      const dispatcher = fakeDispatcher()
      made.push(dispatcher)
      return dispatcher
    }, true)
    const got = await Promise.all([pool.get(), pool.get(), pool.get()])
    expect(made).toHaveLength(1)
    expect(new Set(got).size).toBe(1)
    await Promise.all([pool.close(), pool.close()])
    expect(made[0]!.closes).toBe(1)
  })

  it('close before any request makes no pool, and a request after it is refused instead of opening one nobody closes', async () => {
    let makes = 0
    const pool = new Pool(async () => {
      makes += 1
      return fakeDispatcher()
    }, true)
    await pool.close()
    await expect(pool.get()).rejects.toMatchObject({code: 'client_closed'})
    expect(makes).toBe(0)
  })

  it('close while the pool is being made closes it once made', async () => {
    const dispatcher = fakeDispatcher()
    let release!: () => void
    const pool = new Pool(() => new Promise((resolve) => (release = () => resolve(dispatcher))), true)
    const first = pool.get()
    const closing = pool.close()
    release()
    await first
    await closing
    expect(dispatcher.closes).toBe(1)
  })

  it('a pool that cannot be made fails each request with its error, and close still resolves', async () => {
    const refused = new PmsError('no pool', {code: 'proxy_invalid', exitCode: 2})
    const pool = new Pool(() => Promise.reject(refused), true)
    await expect(pool.get()).rejects.toBe(refused)
    await expect(pool.close()).resolves.toBeUndefined()
  })

  it('a dispatcher handed in is the caller to close', async () => {
    const dispatcher = fakeDispatcher()
    const pool = new Pool(async () => dispatcher, false)
    await pool.get()
    await pool.close()
    expect(dispatcher.closes).toBe(0)
  })
})
