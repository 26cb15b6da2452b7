import {BookingsResource} from './resources/bookings.js'
import {MessageThreadsResource} from './resources/message-threads.js'
import {MessagesResource} from './resources/messages.js'
import {PropertiesResource} from './resources/properties.js'
import {RestrictionBatchesResource} from './resources/restriction-batches.js'
import {RestrictionsResource} from './resources/restrictions.js'
import {Transport, type Query, type TransportOptions} from './transport.js'

export type {BookingsQuery} from './resources/bookings.js'
export type {TokenProvider} from './token-provider.js'
export {anonymousTokenProvider, staticTokenProvider} from './token-provider.js'
export * from './errors.js'

/** What a client is built from; the rest of TransportOptions exists for tests. */
export type ClientOptions = Omit<TransportOptions, 'http' | 'retry' | 'random' | 'pacer' | 'env'>

export interface RawRequest {
  method: string
  /** Relative to base_url unless it starts with '/api/' or '/oauth'. */
  path: string
  query?: Record<string, string | string[]>
  headers?: Record<string, string>
  /** Sent as JSON. */
  body?: unknown
  idempotencyKey?: string
}

export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: unknown
}

/** The Partner API v1, one property per resource; every call shares one pool, pacer and retry loop. */
export class PmsClient {
  readonly properties: PropertiesResource
  readonly restrictions: RestrictionsResource
  readonly restrictionBatches: RestrictionBatchesResource
  readonly bookings: BookingsResource
  readonly messageThreads: MessageThreadsResource
  readonly messages: MessagesResource
  private readonly transport: Transport

  /**
   * Built on a transport of its own, or on one already open (`transport.withTokens(...)`), so that
   * the client shares its pool and pacing with the OAuth calls of the same run. Options beyond
   * ClientOptions exist for tests (an HTTP pool, retry policy, random source, pacer).
   */
  constructor(options: TransportOptions | Transport) {
    this.transport = options instanceof Transport ? options : new Transport(options)
    this.properties = new PropertiesResource(this.transport)
    this.restrictions = new RestrictionsResource(this.transport)
    this.restrictionBatches = new RestrictionBatchesResource(this.transport)
    this.bookings = new BookingsResource(this.transport)
    this.messageThreads = new MessageThreadsResource(this.transport)
    this.messages = new MessagesResource(this.transport)
  }

  get baseUrl(): string {
    return this.transport.baseUrl
  }

  /** GET {base_url}/openapi.json */
  async openapi(): Promise<unknown> {
    return (await this.transport.send({method: 'GET', path: '/openapi.json'})).body
  }

  /** Raw access for `pms api`: the same pacing, retries and errors as every typed call. */
  async request(req: RawRequest): Promise<RawResponse> {
    const answer = await this.transport.send({
      method: req.method,
      path: req.path,
      query: req.query as Query | undefined,
      headers: req.headers,
      json: req.body,
      idempotencyKey: req.idempotencyKey,
    })
    return {status: answer.status, headers: answer.headers, body: answer.body}
  }

  /** Closes the keep-alive pool so that the process can exit at once. */
  close(): Promise<void> {
    return this.transport.close()
  }
}
