import {join} from 'node:path'
import type {Clock} from '../client/clock.js'
import {DEFAULT_RETRY_POLICY, Transport, type RetryPolicy, type TransportOptions} from '../client/transport.js'
import {UsageError} from '../errors.js'

export interface ServiceHttpOptions {
  env: NodeJS.ProcessEnv
  configDir: string
  /** --profile / PMS_PROFILE; undefined means the default profile. */
  profile?: string
  clock?: Clock
  userAgent?: string
  /** --debug */
  trace?: (line: string) => void
  onPacingWait?: TransportOptions['onPacingWait']
}

/**
 * How the calls of a profile are paced: keyed by its App Connection (app_url and profile) and kept
 * under the config directory, so that every pms process of the profile (a cron job beside a
 * terminal) shares one budget, whichever command it runs.
 */
export function connectionPacing(options: Pick<ServiceHttpOptions, 'env' | 'configDir' | 'profile'>, appUrl: string): Pick<TransportOptions, 'connectionKey' | 'pacingDir'> {
  const profile = options.profile || options.env.PMS_PROFILE || 'default'
  return {connectionKey: `${appUrl}#${profile}`, pacingDir: join(options.configDir, 'pacing')}
}

/**
 * PMS_RETRY_MAX_WAIT_MS: the longest wait between two sends of a call that got no answer or a 5xx
 * (8000 by default, about a minute of waiting over twelve sends). A script that would rather fail
 * sooner, or a local sandbox that drops answers on purpose, sets less; the number of sends stays.
 */
export function retryWaitFromEnv(env: NodeJS.ProcessEnv): Partial<RetryPolicy> {
  const raw = env.PMS_RETRY_MAX_WAIT_MS?.trim()
  if (!raw) return {}
  if (!/^\d+$/.test(raw)) {
    throw new UsageError(`PMS_RETRY_MAX_WAIT_MS must be a whole number of milliseconds, not "${raw}"`, {
      code: 'invalid_env',
      suggestion: `unset it for the default (${DEFAULT_RETRY_POLICY.backoffCapMs}), or set a number such as PMS_RETRY_MAX_WAIT_MS=2000`,
    })
  }
  const capMs = Number(raw)
  return {backoffCapMs: capMs, backoffBaseMs: Math.min(DEFAULT_RETRY_POLICY.backoffBaseMs, capMs)}
}

/**
 * The transport of one run against the service at `appUrl`: the client's pool, --debug trace and
 * redaction, and the profile's shared pacing. It sends no bearer token by itself; the API client
 * of the run is `transport.withTokens(...)` of it, so that OAuth calls and API calls share it.
 */
export function serviceTransport(options: ServiceHttpOptions, appUrl: string): Transport {
  return new Transport({
    appUrl,
    userAgent: options.userAgent ?? 'pms',
    clock: options.clock,
    trace: options.trace,
    env: options.env,
    onPacingWait: options.onPacingWait,
    // A local sandbox started with --rate-limits off (benchmarks, tests) enforces no limit to pace for.
    pacing: options.env.PMS_PACING !== 'off',
    retry: retryWaitFromEnv(options.env),
    ...connectionPacing(options, appUrl),
  })
}

/** Runs `task` on `given`, or on a transport of its own that is closed afterwards. */
export async function withServiceTransport<T>(
  options: ServiceHttpOptions,
  appUrl: string,
  given: Transport | undefined,
  task: (http: Transport) => Promise<T>,
): Promise<T> {
  if (given) return task(given)
  const http = serviceTransport(options, appUrl)
  try {
    return await task(http)
  } finally {
    await http.close()
  }
}
