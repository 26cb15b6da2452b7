import {openProfileClient} from '../auth/profile-client.js'
import {refusedTokenOf} from '../client/errors.js'
import type {ClientOptions, PmsClient} from '../client/index.js'
import type {RunSettings} from './context.js'

/**
 * The client of the run's profile: app_url from PMS_APP_URL or the profile, the token from
 * PMS_ACCESS_TOKEN or the stored login (refreshed as the contract demands). Its calls and the
 * refreshes go through one transport, paced with every other pms run on the same profile (a cron
 * job beside a terminal): one budget.
 */
export async function createClient(ctx: RunSettings, hooks: Pick<ClientOptions, 'onPacingWait'> = {}): Promise<PmsClient> {
  return openProfileClient({env: ctx.env, configDir: ctx.configDir, profile: ctx.profile, talk: ctx.talk, clock: ctx.clock, userAgent: `pms/${ctx.version}`, trace: ctx.trace, ...hooks})
}

/** Runs `work` with the profile's client (as createClient makes it), closed whatever `work` does. */
export async function withClient<T>(ctx: RunSettings, work: (client: PmsClient) => Promise<T>): Promise<T> {
  const client = await createClient(ctx)
  try {
    return await work(client)
  } finally {
    await client.close()
  }
}

/**
 * After `connection_revoked` the stored tokens are useless: drop them so the next run asks for a
 * login at once, unless a new login was stored since the refused call went out.
 */
export async function forgetRevokedLogin(ctx: RunSettings, error: unknown): Promise<void> {
  const {forgetRevokedConnection} = await import('../auth/index.js')
  await forgetRevokedConnection({env: ctx.env, configDir: ctx.configDir, profile: ctx.profile, talk: ctx.talk}, refusedTokenOf(error))
}
