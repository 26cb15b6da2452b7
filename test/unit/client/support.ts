import {createServer, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import type {Clock} from '../../../src/client/clock.js'

/** A clock whose sleeps return at once and move time forward, recording every wait. */
export class FakeClock implements Clock {
  readonly sleeps: number[] = []
  constructor(public time = Date.parse('2026-11-22T10:00:00.000Z')) {}
  now(): number {
    return this.time
  }
  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms)
    this.time += ms
  }
}

export interface RecordedRequest {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: Buffer
}

export interface Reply {
  status?: number
  headers?: Record<string, string>
  /** Objects are sent as JSON; strings as given. */
  body?: unknown
}

/** What the scripted service does with one request: answer, or cut the connection. */
export type Script = (req: RecordedRequest, index: number) => Reply | 'destroy' | 'truncate'

export interface TestServer {
  url: string
  requests: RecordedRequest[]
  close(): Promise<void>
}

/** A tiny service on 127.0.0.1 that answers by script and records what it received. */
export async function startServer(script: Script): Promise<TestServer> {
  const requests: RecordedRequest[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const recorded = {method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks)}
      requests.push(recorded)
      const reply = script(recorded, requests.length - 1)
      if (reply === 'destroy') {
        req.socket.destroy()
        return
      }
      if (reply === 'truncate') {
        // A chunked body that stops without its final chunk: a transfer broken on the way.
        res.writeHead(200, {'content-type': 'image/png'})
        res.write('partial', () => setTimeout(() => req.socket.destroy(), 20))
        return
      }
      const isText = typeof reply.body === 'string'
      const payload = reply.body === undefined ? '' : isText ? (reply.body as string) : JSON.stringify(reply.body)
      res.writeHead(reply.status ?? 200, {
        ...(reply.body === undefined || isText ? {} : {'content-type': 'application/json'}),
        ...reply.headers,
      })
      res.end(payload)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export function apiError(status: number, code: string, details?: unknown, headers?: Record<string, string>): Reply {
  return {status, headers, body: {error: {code, message: `${code} happened`, ...(details === undefined ? {} : {details})}}}
}
