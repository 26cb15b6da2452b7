import {join} from 'node:path'
import type {Clock} from '../client/clock.js'
import {Transport, type TransportOptions} from '../client/transport.js'

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
