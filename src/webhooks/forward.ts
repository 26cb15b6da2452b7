/**
 * `--forward-to URL`: POSTs an accepted event on, with the raw body and the headers it came with, so
 * that the receiver behind can verify the same signature itself. The sender has been answered
 * already and will not send again, so a failed forward is tried three times (after 1 and 5 seconds);
 * at most 10 forwards are in flight, as the contract's sender keeps to.
 */
import {request} from 'undici'
import {WEBHOOK_MAX_IN_FLIGHT, WEBHOOK_RESPONSE_DEADLINE_SECONDS} from '../contract/limits.js'

/** Headers of one hop, or recomputed by the HTTP client: never copied. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-connection', 'expect'])
const RETRY_DELAYS_MS = [1000, 5000]

export type ForwardOutcome = {ok: true; status: number; attempts: number} | {ok: false; status: number | null; attempts: number; detail: string}

export class Forwarder {
  private inFlight = 0
  private readonly waiting: Array<() => void> = []

  constructor(
    private readonly url: string,
    private readonly options: {retryDelaysMs?: readonly number[]; deadlineMs?: number} = {},
  ) {}

  async forward(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<ForwardOutcome> {
    const sent: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_HEADERS.has(name.toLowerCase())) sent[name] = value
    const delays = this.options.retryDelaysMs ?? RETRY_DELAYS_MS
    let last: ForwardOutcome = {ok: false, status: null, attempts: 0, detail: 'not sent'}
    for (let attempt = 1; attempt <= delays.length + 1; attempt++) {
      last = await this.slot(() => this.once(rawBody, sent, attempt))
      if (last.ok) return last
      const delay = delays[attempt - 1]
      if (delay !== undefined) await new Promise((resolve) => setTimeout(resolve, delay))
    }
    return last
  }

  private async once(body: Buffer, headers: Record<string, string | string[]>, attempt: number): Promise<ForwardOutcome> {
    const deadline = this.options.deadlineMs ?? WEBHOOK_RESPONSE_DEADLINE_SECONDS * 1000
    try {
      const answer = await request(this.url, {method: 'POST', headers, body, headersTimeout: deadline, bodyTimeout: deadline})
      await answer.body.dump()
      if (answer.statusCode >= 200 && answer.statusCode < 300) return {ok: true, status: answer.statusCode, attempts: attempt}
      return {ok: false, status: answer.statusCode, attempts: attempt, detail: `answered ${answer.statusCode}`}
    } catch (error) {
      return {ok: false, status: null, attempts: attempt, detail: (error as NodeJS.ErrnoException).code ?? (error as Error).message}
    }
  }

  private async slot<T>(task: () => Promise<T>): Promise<T> {
    // A slot freed goes straight to the next in line, so that no newcomer takes it in between.
    if (this.inFlight >= WEBHOOK_MAX_IN_FLIGHT) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else this.inFlight++
    try {
      return await task()
    } finally {
      const next = this.waiting.shift()
      if (next) next()
      else this.inFlight--
    }
  }
}
