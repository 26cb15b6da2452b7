import {join} from 'node:path'
import {resolveAppUrl, resolveTokenProvider} from '../auth/index.js'
import {anonymousTokenProvider, type ClientOptions, ExitCode, PmsClient, PmsError} from '../client/index.js'
import type {RunContext} from './base-command.js'

/**
 * The client of the run's profile: app_url from PMS_APP_URL or the profile, the token from
 * PMS_ACCESS_TOKEN or the stored login (refreshed as the contract demands), pacing keyed by the
 * App Connection and kept under the config directory, so that every call of this run and of other
 * pms runs on the same profile (a cron job beside a terminal) shares one budget.
 */
export async function createClient(
  ctx: RunContext,
  {loginOptional = false, ...hooks}: Pick<ClientOptions, 'onPacingWait'> & {loginOptional?: boolean} = {},
): Promise<PmsClient> {
  const authOptions = {env: ctx.env, configDir: ctx.configDir, profile: ctx.profile, io: ctx.io, clock: ctx.clock}
  const appUrl = resolveAppUrl(authOptions)
  const trace = ctx.debug ? (line: string) => ctx.io.err(`${line}\n`) : undefined
  const userAgent = `pms/${ctx.version}`
  const tokens = await resolveTokenProvider({...authOptions, appUrl, userAgent, trace}).catch((error: unknown) => {
    // Without a login a public document can still be read; the service says so if it is not public.
    if (!loginOptional || !(error instanceof PmsError) || error.exitCode !== ExitCode.loginNeeded) throw error
    trace?.(`* ${error.message}: calling without a token`)
    return anonymousTokenProvider
  })
  return new PmsClient({
    appUrl,
    tokens,
    userAgent,
    clock: ctx.clock,
    trace,
    connectionKey: `${appUrl}#${ctx.profile ?? 'default'}`,
    pacingDir: join(ctx.configDir, 'pacing'),
    ...hooks,
  })
}

/** After `connection_revoked` the stored tokens are useless: drop them so the next run asks for a login at once. */
export async function forgetRevokedLogin(ctx: RunContext): Promise<void> {
  const {forgetRevokedConnection} = await import('../auth/index.js')
  await forgetRevokedConnection({env: ctx.env, configDir: ctx.configDir, profile: ctx.profile, io: ctx.io})
}
