/**
 * `pms webhooks listen`: an HTTP receiver of App Events for integrators behind their own HTTPS
 * front. Every request is verified on its raw bytes before anything reads them as JSON; an accepted
 * event is remembered (SeenLog) and answered 200 at once, and its work (the JSONL file, the command,
 * the forward) happens after the answer, so a slow command never makes the sender's 10-second
 * deadline. A duplicate is answered 200 too (the sender must stop sending it) and nothing more.
 *
 * node:http rather than the sandbox's server framework: the receiver is one route whose whole job
 * is the raw body, which a framework's body parsing would only have to be told to leave alone.
 */
import {closeSync, openSync, writeSync} from 'node:fs'
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {WEBHOOK_HEADERS} from '../contract/webhook-signature.js'
import type {WebhookPayload} from '../contract/webhooks.js'
import {checkDelivery, REFUSAL_STATUS} from './check.js'
import type {Forwarder} from './forward.js'
import type {CommandRunner} from './runner.js'
import type {SeenLog} from './seen.js'

/** The largest body read: App Events are a few hundred bytes, so anything near this is no App Event. */
export const MAX_BODY_BYTES = 1024 * 1024

export type Outcome = 'accepted' | 'duplicate' | 'refused'

/** What the listener tells about each request it answered (one stderr line each). */
export interface RequestReport {
  outcome: Outcome
  /** webhook-id as given (verified unless refused). */
  id: string | null
  type: string | null
  status: number
  /** The refusal reason, or what the work of an accepted event came to. */
  detail: string
}

export interface ListenerOptions {
  host: string
  port: number
  /** The one path served, such as /webhooks. */
  path: string
  secret: string
  toleranceSeconds: number
  seen: SeenLog
  /** --out: JSONL file, one line per accepted event. */
  outPath?: string
  forwarder?: Forwarder
  runner?: CommandRunner
  report(report: RequestReport): void
  now?: () => number
  maxBodyBytes?: number
}

export interface Listener {
  url: string
  /** Stops accepting, lets requests in progress finish, then finishes the work of every accepted event. */
  close(): Promise<void>
}

type Json = Record<string, unknown>

function answer(response: ServerResponse, status: number, body: Json, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  response.writeHead(status, {'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers})
  response.end(text)
}

function headerText(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name]
  return typeof value === 'string' ? value : null
}

export async function startListener(options: ListenerOptions): Promise<Listener> {
  const now = options.now ?? Date.now
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES
  const outFd = options.outPath === undefined ? undefined : openSync(options.outPath, 'a', 0o600)
  const work = new Set<Promise<void>>()

  const afterAnswer = (event: WebhookPayload, rawBody: Buffer, request: IncomingMessage): void => {
    // Counted at once, started after the answer has been written.
    const task = new Promise((resolve) => setImmediate(resolve)).then(async () => {
      const done: string[] = []
      try {
        // The body as it came, on one line: the event itself, not our reading of it (unknown fields kept).
        const line = JSON.stringify(JSON.parse(rawBody.toString('utf8')))
        if (outFd !== undefined) {
          writeSync(outFd, line + '\n')
          done.push('out')
        }
        if (options.runner) {
          options.runner.push(line)
          done.push('exec queued')
        }
        if (options.forwarder) {
          const forwarded = await options.forwarder.forward(rawBody, request.headers)
          done.push(forwarded.ok ? `forwarded ${forwarded.status}` : `forward failed after ${forwarded.attempts} attempts: ${forwarded.detail}`)
        }
      } catch (error) {
        done.push(`failed: ${(error as Error).message}`)
      }
      options.report({outcome: 'accepted', id: event.id, type: event.type, status: 200, detail: done.join(', ')})
    })
    work.add(task)
    void task.finally(() => work.delete(task))
  }

  const handle = (request: IncomingMessage, response: ServerResponse, rawBody: Buffer): void => {
    const checked = checkDelivery(options.secret, request.headers, rawBody, {toleranceSeconds: options.toleranceSeconds, now: now()})
    if (!checked.ok) {
      const status = REFUSAL_STATUS[checked.reason]
      answer(response, status, {error: {code: checked.reason, message: checked.message}})
      options.report({outcome: 'refused', id: headerText(request, WEBHOOK_HEADERS.id), type: null, status, detail: checked.reason})
      return
    }
    const at = now()
    if (options.seen.has(checked.id, at)) {
      answer(response, 200, {status: 'duplicate', id: checked.id})
      options.report({outcome: 'duplicate', id: checked.id, type: checked.event.type, status: 200, detail: 'seen before'})
      return
    }
    // Remembered before the answer: a duplicate sent the moment the sender has its 200 is known.
    options.seen.add(checked.id, at)
    answer(response, 200, {status: 'accepted', id: checked.id})
    afterAnswer(checked.event, rawBody, request)
  }

  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]
    if (path !== options.path) return answer(response, 404, {error: {code: 'not_found', message: `App Events are received on ${options.path}`}})
    if (request.method !== 'POST') return answer(response, 405, {error: {code: 'method_not_allowed', message: 'App Events are POSTed'}}, {allow: 'POST'})
    const tooLarge = () => {
      answer(response, 413, {error: {code: 'payload_too_large', message: `bodies over ${maxBody} bytes are refused`}}, {connection: 'close'})
      options.report({outcome: 'refused', id: headerText(request, WEBHOOK_HEADERS.id), type: null, status: 413, detail: 'payload_too_large'})
      // Nothing more of this body is read: the connection closes once the answer is out.
      response.once('finish', () => request.destroy())
    }
    if (Number(request.headers['content-length'] ?? 0) > maxBody) return tooLarge()
    const chunks: Buffer[] = []
    let size = 0
    let refused = false
    request.on('data', (chunk: Buffer) => {
      if (refused) return
      size += chunk.length
      if (size > maxBody) {
        refused = true
        return tooLarge()
      }
      chunks.push(chunk)
    })
    request.on('end', () => {
      if (!refused) handle(request, response, Buffer.concat(chunks, size))
    })
    request.on('error', () => undefined)
  })
  // Senders keep connections open between deliveries; a short idle time lets a stop finish soon.
  server.keepAliveTimeout = 5000

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address

  return {
    url: `http://${host}:${address.port}${options.path}`,
    async close() {
      await new Promise<void>((resolve) => {
        // A sender still holding a connection after its answers gets it closed (requests in progress end first).
        const stubborn = setTimeout(() => server.closeAllConnections(), 10_000)
        server.close(() => {
          clearTimeout(stubborn)
          resolve()
        })
        server.closeIdleConnections()
      })
      while (work.size > 0) await Promise.allSettled([...work])
      await options.runner?.drain()
      if (outFd !== undefined) closeSync(outFd)
      options.seen.close()
    },
  }
}
