import type {HttpPool} from './http.js'
import {ExitCode, PmsError} from '../errors.js'

/**
 * The keep-alive pool of a transport and of the twins made from it by `withTokens`: made with the
 * first request (so that importing the client loads no HTTP stack), shared by every request of the
 * connection, closed once, by whichever closes first. A request after `close()` is refused rather
 * than given a new pool that nobody would close.
 */
export class Pool {
  private made?: Promise<HttpPool>
  private closing?: Promise<void>
  private closed = false

  /** `owned`: made here and closed here; a pool handed in by the caller is the caller's to close. */
  constructor(
    private readonly make: () => Promise<HttpPool>,
    private readonly owned: boolean,
  ) {}

  /** Rejects with a PmsError when the pool cannot be made: nothing was sent. */
  get(): Promise<HttpPool> {
    if (this.closed) return Promise.reject(new PmsError('This client was closed; open a new one to send more requests', {code: 'client_closed', exitCode: ExitCode.failure}))
    return (this.made ??= this.make())
  }

  close(): Promise<void> {
    this.closed = true
    if (!this.owned || !this.made) return Promise.resolve()
    const made = this.made
    // A pool that could not be made has nothing to close; its error was told to the request that asked.
    return (this.closing ??= made.then(
      (pool) => pool.close(),
      () => undefined,
    ))
  }
}
