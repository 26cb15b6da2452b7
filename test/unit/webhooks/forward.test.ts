import {createServer, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {describe, expect, it} from 'vitest'
import {Forwarder} from '../../../src/webhooks/forward.js'
import {startReceiver} from '../sandbox/webhook-receiver.js'

/** A target whose answers `answer` writes (or breaks) itself; counts the requests. */
async function rawTarget(answer: (response: ServerResponse) => void) {
  let requests = 0
  const server = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      requests++
      answer(response)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    requests: () => requests,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

describe('Forwarder (--forward-to)', () => {
  it('sends the raw body and the headers it came with, except those of one hop', async () => {
    const receiver = await startReceiver()
    try {
      const body = Buffer.from('{"id":"e1",  "type":"booking.created"}')
      const outcome = await new Forwarder(receiver.url, {userAgent: 'pms/test'}).forward(body, {'webhook-id': 'e1', 'webhook-signature': 'v1,abc', host: 'front.example', 'content-length': '999', connection: 'keep-alive', 'x-request-id': 'r1'})
      expect(outcome).toEqual({ok: true, status: 200})
      const got = receiver.received[0]!
      expect(got.body).toBe(body.toString())
      expect(got.headers).toMatchObject({'webhook-id': 'e1', 'webhook-signature': 'v1,abc', 'x-request-id': 'r1', 'content-length': String(body.length)})
      expect(got.headers.host).not.toBe('front.example')
    } finally {
      await receiver.close()
    }
  })

  it('makes one attempt per call and reports a failure with its status or socket error: the inbox decides when to try again', async () => {
    const receiver = await startReceiver((index) => (index < 1 ? 503 : 200))
    try {
      const forwarder = new Forwarder(receiver.url, {userAgent: 'pms/test'})
      expect(await forwarder.forward(Buffer.from('{}'), {})).toEqual({ok: false, status: 503, detail: 'answered 503'})
      expect(receiver.received).toHaveLength(1)
      expect(await forwarder.forward(Buffer.from('{}'), {})).toEqual({ok: true, status: 200})
      await forwarder.close()
    } finally {
      await receiver.close()
    }
    const down = new Forwarder(receiver.url, {userAgent: 'pms/test'})
    expect(await down.forward(Buffer.from('{}'), {})).toEqual({ok: false, status: null, detail: 'ECONNREFUSED'})
    await down.close()
  })

  it('does not follow a redirect: the URL itself must answer 2xx', async () => {
    const receiver = await startReceiver(() => 302)
    try {
      expect(await new Forwarder(receiver.url, {userAgent: 'pms/test'}).forward(Buffer.from('{}'), {})).toMatchObject({ok: false, status: 302})
      expect(receiver.received).toHaveLength(1)
    } finally {
      await receiver.close()
    }
  })

  it('sends a 429 once, with or without Retry-After, and passes the Retry-After on instead of waiting', async () => {
    for (const [headers, expected] of [
      [{}, {ok: false, status: 429, detail: 'answered 429'}],
      [{'retry-after': '7'}, {ok: false, status: 429, detail: 'answered 429', retryAfterMs: 7000}],
    ] as const) {
      const target = await rawTarget((response) => response.writeHead(429, headers).end())
      const forwarder = new Forwarder(target.url, {userAgent: 'pms/test'})
      try {
        const started = Date.now()
        expect(await forwarder.forward(Buffer.from('{}'), {})).toEqual(expected)
        expect(Date.now() - started).toBeLessThan(1000)
        expect(target.requests()).toBe(1)
      } finally {
        await forwarder.close()
        await target.close()
      }
    }
  })

  it('fails a 200 whose body breaks, and a target that does not answer within the deadline, without throwing', async () => {
    const broken = await rawTarget((response) => {
      response.writeHead(200, {'content-length': '100'})
      response.write('{"partial":')
      setTimeout(() => response.socket?.destroy(), 20)
    })
    const silent = await rawTarget(() => undefined)
    const forwarders = [new Forwarder(broken.url, {userAgent: 'pms/test'}), new Forwarder(silent.url, {userAgent: 'pms/test', deadlineMs: 300})]
    try {
      expect(await forwarders[0]!.forward(Buffer.from('{}'), {})).toMatchObject({ok: false, status: 200, detail: expect.stringMatching(/^answered 200, then the answer broke: /) as unknown})
      const started = Date.now()
      expect(await forwarders[1]!.forward(Buffer.from('{}'), {})).toEqual({ok: false, status: null, detail: 'no whole answer within 0.3 s'})
      expect(Date.now() - started).toBeLessThan(2000)
    } finally {
      for (const forwarder of forwarders) await forwarder.close()
      await broken.close()
      await silent.close()
    }
  })
})
