/**
 * `pms sandbox trigger NAME`: asks a running sandbox to make something happen (POST
 * /_sandbox/events) and prints the App Events raised, whose ids are the webhook-ids that will be
 * delivered. The admin API is reached through the client's HTTP core, never the sandbox's code.
 */
import {anonymousTokenProvider, NetworkError, PmsClient} from '../client/index.js'
import {ExitCode, PmsError, UsageError} from '../errors.js'
import {buildRawRequest} from './raw-request.js'
import type {RunContext} from '../run/context.js'

/** Where `pms sandbox start` listens by default. */
export const DEFAULT_SANDBOX_APP_URL = 'http://127.0.0.1:4010'

/** The names the sandbox serves, for help texts; the sandbox itself answers 422 with the ones it knows. */
export const TRIGGER_NAMES = [
  'guest_message',
  'host_message',
  'assistant_message',
  'automation_message',
  'message_read',
  'booking_created',
  'booking_changed',
  'booking_cancelled',
  'booking_removed',
  'channel_outage',
] as const

export interface TriggerOptions {
  name: string
  /** --admin-url: the admin_url (or app_url) printed by `pms sandbox start`. */
  adminUrl?: string
  booking?: string
  property?: string
  text?: string
  channel?: string
  photo?: boolean
  /** Seconds. */
  duration?: number
  /** --field key=value, typed as `pms api -F` (numbers, true, false, null), applied last. */
  fields?: string[]
}

export interface TriggerAnswer {
  trigger: string
  events: Array<{id: string; type: string}>
  [made: string]: unknown
}

/** The body of POST /_sandbox/events. Pure: flags are checked before anything is sent. */
export function triggerBody(options: TriggerOptions): Record<string, unknown> {
  if (!/^[a-z][a-z0-9_]*$/.test(options.name)) {
    throw new UsageError(`"${options.name}" is not a trigger name`, {suggestion: `one of ${TRIGGER_NAMES.join(', ')}`})
  }
  const body: Record<string, unknown> = {trigger: options.name}
  if (options.booking !== undefined) body.booking_id = options.booking
  if (options.property !== undefined) body.property_id = options.property
  if (options.text !== undefined) body.text = options.text
  if (options.channel !== undefined) body.channel = options.channel
  if (options.photo) body.photo = true
  if (options.duration !== undefined) body.duration_seconds = options.duration
  const fields = options.fields ?? []
  if (fields.length > 0) Object.assign(body, buildRawRequest({method: 'POST', path: '/', fields}).body as Record<string, unknown>)
  return body
}

/** The admin API root: --admin-url, else PMS_APP_URL or the profile's app_url, else the sandbox's default port. */
export async function resolveAdminUrl(ctx: Pick<RunContext, 'env' | 'configDir' | 'profile'>, adminUrl?: string): Promise<string> {
  let base = adminUrl
  if (base === undefined) {
    const {resolveAppUrl} = await import('../auth/index.js')
    try {
      base = resolveAppUrl({env: ctx.env, configDir: ctx.configDir, profile: ctx.profile})
    } catch {
      base = DEFAULT_SANDBOX_APP_URL
    }
  }
  let url: URL
  try {
    url = new URL(base)
  } catch {
    throw new UsageError(`--admin-url ${base} is not a URL`, {suggestion: `--admin-url ${DEFAULT_SANDBOX_APP_URL}/_sandbox (the admin_url pms sandbox start prints)`})
  }
  const path = url.pathname.replace(/\/+$/, '')
  return `${url.origin}${path.endsWith('/_sandbox') ? path : `${path}/_sandbox`}`
}

export async function runTrigger(ctx: RunContext, options: TriggerOptions): Promise<TriggerAnswer> {
  const body = triggerBody(options)
  const adminUrl = await resolveAdminUrl(ctx, options.adminUrl)
  const client = new PmsClient({
    appUrl: new URL(adminUrl).origin,
    tokens: anonymousTokenProvider,
    userAgent: `pms/${ctx.version}`,
    pacing: false,
    ...(ctx.debug ? {trace: (line: string) => ctx.io.err(`${line}\n`)} : {}),
  })
  try {
    return (await client.request({method: 'POST', path: `${adminUrl}/events`, body})).body as TriggerAnswer
  } catch (error) {
    if (error instanceof NetworkError) {
      throw new PmsError(`No sandbox answers at ${adminUrl}: ${error.message}`, {
        code: 'sandbox_unreachable',
        exitCode: ExitCode.tempFailure,
        suggestion: 'start one with pms sandbox start, or pass --admin-url with the admin_url it printed',
        cause: error,
      })
    }
    throw error
  } finally {
    await client.close()
  }
}

/** Plain lines: one per App Event raised (type and id), then what was made. */
export function renderTrigger(answer: TriggerAnswer): string {
  const lines = answer.events.map((event) => `event\t${event.type}\t${event.id}`)
  for (const [key, value] of Object.entries(answer)) {
    if (key === 'trigger' || key === 'events') continue
    lines.push(`${key}\t${typeof value === 'string' ? value : JSON.stringify(value)}`)
  }
  return lines.join('\n') + '\n'
}
