/** Every API and OAuth call received, for GET /_sandbox/requests. */
export interface LoggedRequest {
  at: number
  method: string
  path: string
  query: string
  status: number
  idempotency_key: string | null
  connection_id: string | null
  /** True when a fault closed the connection instead of answering `status`. */
  dropped: boolean
}

/** Bounded, so that a long benchmark cannot grow the sandbox without end. */
export const REQUEST_LOG_LIMIT = 100_000

export class RequestLog {
  private entries: LoggedRequest[] = []

  add(entry: LoggedRequest): void {
    this.entries.push(entry)
    if (this.entries.length > REQUEST_LOG_LIMIT * 1.1) this.entries = this.entries.slice(-REQUEST_LOG_LIMIT)
  }

  list(): LoggedRequest[] {
    return this.entries.slice(-REQUEST_LOG_LIMIT)
  }

  clear(): void {
    this.entries = []
  }
}
