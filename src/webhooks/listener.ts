/**
 * `pms webhooks listen`: an HTTP receiver of App Events for integrators behind their own HTTPS
 * front. Every request is verified on its raw bytes before anything reads them as JSON; a verified
 * event is stored in the inbox (committed) and only then answered 200, so an event the sender counts
 * as delivered is never lost. Its work (the forward, the command, the --out line) is done from the
 * inbox, after the answer, so a slow command or a full disk never makes the sender's 10-second
 * deadline. A duplicate is answered 200 too (the sender must stop sending it) and nothing more.
 * When the inbox cannot store (disk full, database down), the answer is 503 and the sender tries
 * again later.
 *
 * node:http rather than the sandbox's server framework: the receiver is one route whose whole job
 * is the raw body, which a framework's body parsing would only have to be told to leave alone.
 */
import type {IncomingMessage, ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {WEBHOOK_HEADERS} from '../contract/webhook-signature.js'
import {checkDelivery, REFUSAL_STATUS} from './check.js'
import {forwardedHeaders} from './forward.js'
import type {Inbox, NewEvent} from './inbox.js'

/** The largest body read: App Events are a few hundred bytes, so anything near this is no App Event. */
export const MAX_BODY_BYTES = 1024 * 1024

/** Commits of the inbox under way at once. */
const MAX_COMMITS_IN_FLIGHT = 4

/** Seconds a sender is asked to wait (Retry-After) when the inbox cannot store. */
const UNAVAILABLE_RETRY_SECONDS = 30

export type Outcome = 'accepted' | 'duplicate' | 'refused'

/** What the listener tells about each request it answered (one stderr line each). */
export interface RequestReport {
  outcome: Outcome
  /** webhook-id as given (verified unless refused). */
  id: string | null
  type: string | null
  status: number
  /** The refusal reason, or where the event went. */
  detail: string
}

export interface ListenerOptions {
  host: string
  port: number
  /** The one path served, such as /webhooks. */
  path: string
  secret: string
  toleranceSeconds: number
  inbox: Inbox
  /** Whether stored events have work to wait for (--forward-to, --exec, --out); without, they are stored as done. */
  hasWork: boolean
  /** New events were stored (the worker looks for them at once). */
  onStored?(): void
  report(report: RequestReport): void
  now?: () => number
  maxBodyBytes?: number
}

export interface Listener {
  url: string
  /** Stops accepting and lets requests in progress finish (their events stored, or refused). */
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

interface Waiting {
  event: NewEvent
  stored(added: boolean): void
  refused(error: unknown): void
}

export async function startListener(options: ListenerOptions): Promise<Listener> {
  const now = options.now ?? Date.now
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES

  // Deliveries that come while a commit is under way wait for the next one, all together: one
  // transaction (one fsync, one round trip) for many events. A few commits may be in flight at once,
  // so that a round trip or an fsync does not hold up the deliveries that come meanwhile.
  let waiting: Waiting[] = []
  const flushing = new Set<Promise<void>>()
  const flush = async (batch: Waiting[]): Promise<void> => {
    try {
      const added = await options.inbox.add(batch.map((item) => item.event))
      // The same id twice in one batch: the first is the new one, answered `accepted`.
      const answered = new Set<string>()
      const fresh = batch.filter((item) => {
        const first = added.has(item.event.id) && !answered.has(item.event.id)
        answered.add(item.event.id)
        return first
      })
      const accepted = new Set(fresh)
      for (const item of batch) item.stored(accepted.has(item))
      if (added.size > 0) options.onStored?.()
    } catch (error) {
      for (const item of batch) item.refused(error)
    }
  }
  let scheduled = false
  const schedule = (): void => {
    if (scheduled || flushing.size >= MAX_COMMITS_IN_FLIGHT) return
    scheduled = true
    setImmediate(() => {
      scheduled = false
      if (waiting.length === 0) return
      const batch = waiting
      waiting = []
      const task = flush(batch).finally(() => {
        flushing.delete(task)
        if (waiting.length > 0) schedule()
      })
      flushing.add(task)
    })
  }
  const store = (event: NewEvent): Promise<boolean> =>
    new Promise((stored, refused) => {
      waiting.push({event, stored, refused})
      schedule()
    })

  const handle = async (request: IncomingMessage, response: ServerResponse, rawBody: Buffer): Promise<void> => {
    const checked = checkDelivery(options.secret, request.headers, rawBody, {toleranceSeconds: options.toleranceSeconds, now: now()})
    if (!checked.ok) {
      const status = REFUSAL_STATUS[checked.reason]
      answer(response, status, {error: {code: checked.reason, message: checked.message}})
      options.report({outcome: 'refused', id: headerText(request, WEBHOOK_HEADERS.id), type: null, status, detail: checked.reason})
      return
    }
    const {id, event} = checked
    let added: boolean
    try {
      added = await store({id, type: event.type, body: rawBody, headers: forwardedHeaders(request.headers), done: !options.hasWork})
    } catch (error) {
      // Never acknowledge what is not stored: the sender retries a 503.
      answer(response, 503, {error: {code: 'inbox_unavailable', message: 'the event could not be stored; send it again later'}}, {'retry-after': String(UNAVAILABLE_RETRY_SECONDS)})
      options.report({outcome: 'refused', id, type: event.type, status: 503, detail: `inbox_unavailable: ${(error as Error).message}`})
      return
    }
    if (!added) {
      answer(response, 200, {status: 'duplicate', id})
      options.report({outcome: 'duplicate', id, type: event.type, status: 200, detail: 'stored before'})
      return
    }
    answer(response, 200, {status: 'accepted', id})
    options.report({outcome: 'accepted', id, type: event.type, status: 200, detail: options.hasWork ? 'stored' : 'stored, nothing to do'})
  }

  // Not an import of node:http: building its namespace reads the lazy WebSocket getters and so loads
  // Node's own undici (about 100 ms of CPU), which nothing here uses.
  const server = process.getBuiltinModule('node:http').createServer((request, response) => {
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
      if (!refused) void handle(request, response, Buffer.concat(chunks, size))
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
      while (flushing.size > 0 || waiting.length > 0) await Promise.allSettled([...flushing, new Promise((resolve) => setImmediate(resolve))])
    },
  }
}
