/**
 * Delivery of App Events to the App Webhook, as the contract's "Delivery, retries, deduplication"
 * says: signed POSTs, a 2xx within the response deadline or it failed (redirects are not
 * followed), retries after 1 min, 5 min, 30 min, 2 h, 5 h, 8 h and 8 h of sandbox time (8 attempts,
 * then dropped), at most 10 deliveries in flight, and the delivery scope re-checked before every
 * attempt (an event the App may no longer hear is dropped, not retried).
 */
import type {IncomingMessage} from 'node:http'
import type {LookupFunction} from 'node:net'
import {WEBHOOK_MAX_IN_FLIGHT, WEBHOOK_RESPONSE_DEADLINE_SECONDS, WEBHOOK_RETRY_DELAYS_SECONDS} from '../../contract/limits.js'
import {sign, WEBHOOK_HEADERS} from '../../contract/webhook-signature.js'
import {EVENT_PERMISSIONS} from '../../contract/webhooks.js'
import type {SandboxContext} from '../context.js'
import type {SandboxEvent} from '../events.js'
import {connectionState, effectivePermissions, findAccount, findConnection, propertyInScope} from '../scope.js'
import {checkWebhookUrl, resolvePublic} from './url.js'

/** Why an attempt was not made; the event is then dropped for good. */
export type DropReason =
  | 'no_webhook_url'
  | 'unsubscribed'
  | 'connection_unknown'
  | 'app_suspended'
  | 'connection_revoked'
  | 'permission_withdrawn'
  | 'property_out_of_scope'
  | 'message_gone'
  | 'invalid_webhook_url'
  | 'private_address'
  | 'drop_events'

/** One line of GET /_sandbox/deliveries. */
export interface DeliveryRecord {
  event_id: string
  type: string
  connection_id: string
  /** 1 to 8; a duplicate delivery repeats the number of the attempt it copies. */
  attempt: number
  /** `delivered` (2xx), `failed` (anything else; retried unless it was the 8th) or `dropped` (not sent). */
  outcome: 'delivered' | 'failed' | 'dropped'
  /** HTTP status answered, null when none came (timeout, refused connection, dropped). */
  status: number | null
  /** Why it failed (`timeout`, `redirect`, `status`, `network`) or was dropped (DropReason). */
  reason: string | null
  /** Sandbox time the attempt was made. */
  at: number
  /** Sandbox time of the next attempt when a retry is scheduled. */
  next_attempt_at: number | null
  duplicate: boolean
}

interface Delivery {
  event: SandboxEvent
  /** The exact bytes of every attempt: a retry carries the same body under the same webhook-id. */
  body: string
  attempt: number
  duplicate: boolean
  /** Lost by the `drop_events` fault: listed as dropped at its first attempt, never sent. */
  lost?: boolean
}

/** What --state keeps: every event still to be delivered, with the sandbox time its next attempt is due. */
export interface DispatcherState {
  version: 1
  waiting: Array<{event: Omit<SandboxEvent, 'gone'>; body: string; attempt: number; due_at: number}>
}

export type AttemptAnswer = {status: number} | {error: 'timeout' | 'network'; detail: string}

const MAX_RECORDS = 100_000

/** The payload of the contract's Payload table: the event without its internal scope fields. */
export function payloadOf(event: SandboxEvent): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: new Date(event.created_at).toISOString(),
    connection_id: event.connection_id,
    account_id: event.account_id,
    data: event.data,
  })
}

/** Whether the App may hear this event now; a DropReason when not (re-checked before every attempt). */
export function deliveryScope(ctx: SandboxContext, event: SandboxEvent): DropReason | null {
  const {world} = ctx
  if (!world.app.webhook_url) return 'no_webhook_url'
  const subscribed = world.app.webhook_events
  if (subscribed && !subscribed.includes(event.type)) return 'unsubscribed'
  const connection = findConnection(world, event.connection_id)
  if (connection === undefined) return 'connection_unknown'
  // While suspended nothing is delivered, revocations included; a revoked connection hears only its revocation.
  if (world.app.suspended || !findAccount(world, connection.account_id)?.app_allowed) return 'app_suspended'
  if (connectionState(world, connection) === 'revoked' && event.type !== 'app_connection.revoked') return 'connection_revoked'
  const needed = EVENT_PERMISSIONS[event.type]
  if (needed !== undefined && !effectivePermissions(world, connection).has(needed)) return 'permission_withdrawn'
  const propertyId = event.property_id ?? (typeof event.data.property_id === 'string' ? event.data.property_id : undefined)
  if (propertyId !== undefined && propertyInScope(world, connection, propertyId) === undefined) return 'property_out_of_scope'
  if (event.gone?.() === true) return 'message_gone'
  return null
}

export interface DispatcherOptions {
  /** Real milliseconds the receiver has to answer; default 10 s. */
  deadlineMs?: number
  /** Real clock for `webhook-timestamp`: receivers check it against their own clock. */
  realNow?: () => number
}

export class WebhookDispatcher {
  readonly records: DeliveryRecord[] = []
  private readonly ready: Delivery[] = []
  /** Every delivery not settled yet (waiting for a slot, in flight or for its retry), with when it is due. */
  private readonly waiting = new Map<Delivery, number>()
  private inFlight = 0
  private readonly timers = new Set<NodeJS.Timeout>()
  private closed = false
  /** Ends the deliveries in flight when the sandbox stops, so that a stalled receiver never holds it open. */
  private readonly stopping = new AbortController()
  private readonly deadlineMs: number
  private readonly realNow: () => number
  /** Draws for the `duplicate_delivery` fault, seeded like the other faults. */
  private readonly random: () => number
  /** Draws for the `drop_events` fault, decided once per event when it is raised. */
  private readonly dropDraw: () => number

  constructor(
    private readonly ctx: SandboxContext,
    options: DispatcherOptions = {},
  ) {
    this.deadlineMs = options.deadlineMs ?? WEBHOOK_RESPONSE_DEADLINE_SECONDS * 1000
    this.realNow = options.realNow ?? Date.now
    const random = ctx.random('webhook-duplicates')
    this.random = () => random.next()
    const drops = ctx.random('webhook-drops')
    this.dropDraw = () => drops.next()
  }

  /** Deliveries started and not answered yet. */
  get inFlightCount(): number {
    return this.inFlight
  }

  enqueue(event: SandboxEvent): void {
    if (this.closed) return
    const delivery: Delivery = {event, body: payloadOf(event), attempt: 1, duplicate: false}
    // The contract's "events can be missed": raised, never sent, so that only a reconcile finds the change.
    const drop = this.ctx.faults.drop_events
    if (drop > 0 && this.dropDraw() < drop) delivery.lost = true
    this.waiting.set(delivery, this.ctx.clock.now())
    this.ready.push(delivery)
    this.pump()
  }

  /** Deliveries still to be made, for --state (duplicates of the fault are not kept). */
  toJSON(): DispatcherState {
    const waiting = [...this.waiting].filter(([delivery]) => !delivery.duplicate)
    return {
      version: 1,
      waiting: waiting.map(([{event, body, attempt}, dueAt]) => {
        const {gone: _, ...plain} = event
        return {event: plain, body, attempt, due_at: dueAt}
      }),
    }
  }

  /** Schedules the deliveries a previous run left, each at its due time (at once when overdue). */
  restore(state: DispatcherState | undefined): void {
    for (const saved of state?.waiting ?? []) {
      const delivery: Delivery = {event: saved.event, body: saved.body, attempt: saved.attempt, duplicate: false}
      this.schedule(delivery, Math.max(0, saved.due_at - this.ctx.clock.now()))
    }
  }

  close(): void {
    this.closed = true
    this.stopping.abort()
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    this.ready.length = 0
  }

  private schedule(delivery: Delivery, inMs: number): void {
    this.waiting.set(delivery, this.ctx.clock.now() + inMs)
    const timer = this.ctx.clock.setTimeout(() => {
      this.timers.delete(timer)
      this.ready.push(delivery)
      this.pump()
    }, inMs)
    this.timers.add(timer)
  }

  private pump(): void {
    while (!this.closed && this.inFlight < WEBHOOK_MAX_IN_FLIGHT && this.ready.length > 0) {
      const delivery = this.ready.shift() as Delivery
      this.inFlight++
      void this.attempt(delivery).finally(() => {
        this.inFlight--
        this.pump()
      })
    }
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const {ctx} = this
    const {event} = delivery
    const record = (outcome: DeliveryRecord['outcome'], status: number | null, reason: string | null, retryInMs: number | null = null) => {
      const at = ctx.clock.now()
      this.records.push({
        event_id: event.id,
        type: event.type,
        connection_id: event.connection_id,
        attempt: delivery.attempt,
        outcome,
        status,
        reason,
        at,
        next_attempt_at: retryInMs === null ? null : at + retryInMs,
        duplicate: delivery.duplicate,
      })
      if (this.records.length > MAX_RECORDS) this.records.splice(0, this.records.length - MAX_RECORDS)
      // An attempt cut short by the sandbox stopping is made again at the next start (--state).
      if (!(this.closed && outcome === 'failed')) this.waiting.delete(delivery)
    }
    if (delivery.lost === true) return record('dropped', null, 'drop_events')
    const dropped = deliveryScope(ctx, event)
    if (dropped !== null) return record('dropped', null, dropped)
    const check = checkWebhookUrl(ctx.world.app.webhook_url as string)
    if (!check.ok) return record('dropped', null, 'invalid_webhook_url')
    let lookup: LookupFunction | undefined
    if (!check.loopback) {
      const resolved = await resolvePublic(check.url.hostname)
      if (!resolved.ok && resolved.reason === 'private_address') return record('dropped', null, 'private_address')
      if (resolved.ok) {
        // Connect to the address that was checked, not to a second answer of the DNS.
        lookup = (_host, options, callback) => {
          if ((options as {all?: boolean}).all) (callback as unknown as (e: null, a: Array<{address: string; family: number}>) => void)(null, [{address: resolved.address, family: resolved.family}])
          else callback(null, resolved.address, resolved.family)
        }
      } else return this.failed(delivery, record, null, 'network')
    }
    const timestamp = Math.floor(this.realNow() / 1000)
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'pms-sandbox-webhooks/1',
      [WEBHOOK_HEADERS.id]: event.id,
      [WEBHOOK_HEADERS.timestamp]: String(timestamp),
      [WEBHOOK_HEADERS.signature]: sign(ctx.world.app.webhook_secret, event.id, timestamp, delivery.body),
    }
    const answer = await post(check.url, headers, delivery.body, {deadlineMs: this.deadlineMs, lookup, signal: this.stopping.signal})
    if ('status' in answer && answer.status >= 200 && answer.status < 300) {
      record('delivered', answer.status, null)
      const {duplicate_delivery: duplicate} = ctx.faults
      // The contract's "the same event can arrive more than once": the same attempt, sent again.
      if (!delivery.duplicate && duplicate > 0 && this.random() < duplicate) this.ready.push({...delivery, duplicate: true})
      return
    }
    if ('status' in answer) return this.failed(delivery, record, answer.status, answer.status >= 300 && answer.status < 400 ? 'redirect' : 'status')
    return this.failed(delivery, record, null, answer.error)
  }

  private failed(delivery: Delivery, record: (outcome: 'failed', status: number | null, reason: string, retryInMs?: number | null) => void, status: number | null, reason: string): void {
    const delaySeconds = WEBHOOK_RETRY_DELAYS_SECONDS[delivery.attempt - 1]
    if (delivery.duplicate || delaySeconds === undefined || this.closed) return record('failed', status, reason, null)
    record('failed', status, reason, delaySeconds * 1000)
    this.schedule({...delivery, attempt: delivery.attempt + 1}, delaySeconds * 1000)
  }
}

/** One POST with Node's own client: no redirects followed, the whole answer due within the deadline. */
function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: {deadlineMs: number; lookup?: LookupFunction; signal: AbortSignal},
): Promise<AttemptAnswer> {
  const {deadlineMs, lookup, signal} = options
  return new Promise((resolve) => {
    // Taken, not imported: an import of node:http builds its namespace, which reads its lazy
    // WebSocket getters and so loads Node's own undici at every start of the sandbox.
    const send = process.getBuiltinModule(url.protocol === 'https:' ? 'node:https' : 'node:http').request
    let settled = false
    const finish = (answer: AttemptAnswer) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(answer)
    }
    const request = send(url, {method: 'POST', headers: {...headers, 'content-length': String(Buffer.byteLength(body))}, agent: false, signal, ...(lookup ? {lookup} : {})}, (response: IncomingMessage) => {
      const status = response.statusCode ?? 0
      // The answer counts once it is complete: a receiver that sends headers and then stalls times out.
      response.on('end', () => finish({status}))
      response.on('error', (error) => finish({error: 'network', detail: error.message}))
      response.on('close', () => finish({error: 'network', detail: 'the connection closed before the answer was complete'}))
      response.resume()
    })
    const timer = setTimeout(() => {
      finish({error: 'timeout', detail: `no answer within ${deadlineMs} ms`})
      request.destroy()
    }, deadlineMs)
    timer.unref()
    request.on('error', (error: NodeJS.ErrnoException) => finish({error: 'network', detail: error.code ?? error.message}))
    request.end(body)
  })
}
