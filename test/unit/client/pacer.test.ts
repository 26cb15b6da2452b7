import {describe, expect, it} from 'vitest'
import {limitClassOf, Pacer} from '../../../src/client/pacer.js'
import {FakeClock} from './support.js'

describe('pacing per App Connection and limit class', () => {
  it('60 reads within 60 s leave at once; the 61st waits for the window instead of failing', async () => {
    const clock = new FakeClock()
    const pacer = new Pacer(clock, {marginMs: 0})
    const start = clock.now()
    for (let i = 0; i < 60; i++) {
      await pacer.acquire('c', 'read')
      clock.time += 100
    }
    expect(clock.sleeps).toEqual([])
    await pacer.acquire('c', 'read')
    expect(clock.sleeps).toHaveLength(1)
    // The first read left at `start`; the 61st may leave 60 s after it.
    expect(clock.now()).toBe(start + 60_000)
  })

  it('the 11th write within 60 s waits; sends have their own 30 per 60 s', async () => {
    const clock = new FakeClock()
    const pacer = new Pacer(clock, {marginMs: 0})
    for (let i = 0; i < 10; i++) await pacer.acquire('c', 'write')
    for (let i = 0; i < 30; i++) await pacer.acquire('c', 'send')
    expect(clock.sleeps).toEqual([])
    await pacer.acquire('c', 'write')
    expect(clock.sleeps).toEqual([60_000])
    await pacer.acquire('c', 'send')
    // The window of sends started at the same instant, and 60 s have now passed.
    expect(clock.sleeps).toEqual([60_000])
  })

  it('calls older than the window (and its margin) stop counting: the next 60 reads leave without waiting', async () => {
    const clock = new FakeClock()
    const pacer = new Pacer(clock)
    for (let i = 0; i < 60; i++) await (await pacer.acquire('c', 'read')).done()
    clock.time += 60_250
    for (let i = 0; i < 60; i++) await (await pacer.acquire('c', 'read')).done()
    expect(clock.sleeps).toEqual([])
  })

  it('the margin holds on the edge of the window too: a 61st read arriving just before or exactly when the window ends leaves 250 ms after it', async () => {
    for (const arrival of [59_999, 60_000, 60_100]) {
      const clock = new FakeClock()
      const pacer = new Pacer(clock)
      const start = clock.now()
      for (let i = 0; i < 60; i++) await (await pacer.acquire('c', 'read')).done()
      clock.time = start + arrival
      await pacer.acquire('c', 'read')
      expect(clock.now(), `arrival at +${arrival} ms`).toBe(start + 60_250)
    }
  })

  it('never lets more than the limit leave in any 60 s window over a long job', async () => {
    const clock = new FakeClock()
    const pacer = new Pacer(clock, {marginMs: 0})
    const sent: number[] = []
    for (let i = 0; i < 250; i++) {
      await pacer.acquire('c', 'read')
      sent.push(clock.now())
      clock.time += 37
    }
    for (let i = 0; i < sent.length; i++) {
      const inWindow = sent.filter((t) => t > (sent[i] as number) - 60_000 && t <= (sent[i] as number)).length
      expect(inWindow).toBeLessThanOrEqual(60)
    }
  })

  it('concurrent callers each reserve their own slot', async () => {
    const clock = new FakeClock()
    const pacer = new Pacer(clock, {marginMs: 0, limits: {read: 2, write: 10, send: 30}})
    expect(
      await Promise.all([pacer.reserve('c', 'read'), pacer.reserve('c', 'read'), pacer.reserve('c', 'read'), pacer.reserve('c', 'read')]),
    ).toEqual([0, 0, 60_000, 60_000])
  })

  it('a call counts from when its answer arrived: a slow answer pushes the window back by its latency', async () => {
    const clock = new FakeClock()
    const pacer = new Pacer(clock, {marginMs: 0, limits: {read: 2, write: 10, send: 30}})
    const start = clock.now()
    const first = await pacer.acquire('c', 'read')
    // The service may have counted the first read as late as its answer, 5 s after it left.
    clock.time += 5_000
    await first.done()
    await (await pacer.acquire('c', 'read')).done()
    await pacer.acquire('c', 'read')
    expect(clock.now()).toBe(start + 65_000)
  })

  it('App Connections are paced apart', async () => {
    const clock = new FakeClock()
    const pacer = new Pacer(clock, {marginMs: 0})
    for (let i = 0; i < 10; i++) await pacer.acquire('a', 'write')
    await pacer.acquire('b', 'write')
    expect(clock.sleeps).toEqual([])
  })

  it('a pause after a 429 holds the class back', async () => {
    const clock = new FakeClock()
    const pacer = new Pacer(clock, {marginMs: 0})
    await pacer.pause('c', 'read', 5_000)
    await pacer.acquire('c', 'read')
    expect(clock.sleeps).toEqual([5_000])
  })

  it('classes calls as the contract counts them', () => {
    expect(limitClassOf('GET', '/api/v1/properties')).toBe('read')
    expect(limitClassOf('GET', '/api/v1/bookings/b/messages/m/attachments/0')).toBe('read')
    expect(limitClassOf('HEAD', '/api/v1/properties')).toBe('read')
    expect(limitClassOf('POST', '/api/v1/restriction-batches')).toBe('write')
    expect(limitClassOf('POST', '/api/v1/bookings/b/message-thread/close')).toBe('write')
    expect(limitClassOf('POST', '/api/v1/bookings/b/messages')).toBe('send')
  })
})
