import {ApiError, RateLimitError} from '../client/errors.js'
import {staticTokenProvider} from '../client/token-provider.js'
import type {Transport} from '../client/transport.js'

/** One GET under {app_url}/api/v1 with a bearer token; what came back, without throwing on HTTP errors. */
export interface ProbeAnswer {
  status: number
  /** The API error code, when the answer is the contract's error shape. */
  code?: string
  json?: unknown
}

/**
 * A read of `pms auth status` and `pms auth doctor`, sent like every read (paced in the profile's
 * shared budget, retried on 5xx, traced) with `token` as it is: a refused token is reported, not
 * refreshed. A connection that cannot be made still throws.
 */
export async function probeGet(http: Transport, path: string, token: string | undefined): Promise<ProbeAnswer> {
  const sender = token === undefined ? http : http.withTokens(staticTokenProvider(token))
  try {
    const answer = await sender.send({method: 'GET', path})
    return {status: answer.status, json: answer.body}
  } catch (error) {
    if (error instanceof ApiError) {
      const shaped = error.code !== `http_${error.status}`
      return {status: error.status, json: error.body, ...(shaped ? {code: error.code} : {})}
    }
    if (error instanceof RateLimitError) return {status: 429, code: 'rate_limited'}
    throw error
  }
}
