/**
 * The App Webhook as a sandbox feature: every App Event raised on the event bus is delivered to the
 * App's webhook URL (set by `--webhook-url` / `--events` or PUT /_sandbox/webhook), and every
 * attempt is listed at GET /_sandbox/deliveries.
 */
import {EVENT_TYPES, type EventType} from '../../contract/limits.js'
import type {SandboxContext} from '../context.js'
import type {SandboxFeature} from '../feature.js'
import {validationFailed, type ApiServer} from '../http.js'
import {WebhookDispatcher, type DeliveryRecord, type DispatcherState} from './dispatcher.js'
import {checkWebhookUrl} from './url.js'

/** A webhook setting refused at start; `setting` names what to fix. */
export class WebhookSettingError extends Error {
  constructor(
    message: string,
    readonly setting: 'url' | 'events',
  ) {
    super(message)
    this.name = 'WebhookSettingError'
  }
}

/** Checks a URL and event list; throws WebhookSettingError. Events null means every type. */
export function webhookSetting(url: string | null, events: readonly string[] | null): {url: string | null; events: EventType[] | null; loopback: boolean} {
  let loopback = false
  if (url !== null) {
    const check = checkWebhookUrl(url)
    if (!check.ok) throw new WebhookSettingError(`The webhook URL ${check.message}.`, 'url')
    loopback = check.loopback
  }
  if (events === null) return {url, events: null, loopback}
  const unknown = events.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type))
  if (unknown.length > 0 || events.length === 0) {
    throw new WebhookSettingError(`Unknown event type${unknown.length === 1 ? '' : 's'} ${unknown.join(', ') || '(none given)'}; known: ${EVENT_TYPES.join(', ')}.`, 'events')
  }
  return {url, events: EVENT_TYPES.filter((type) => events.includes(type)), loopback}
}

function view(record: DeliveryRecord) {
  return {
    ...record,
    at: new Date(record.at).toISOString(),
    next_attempt_at: record.next_attempt_at === null ? null : new Date(record.next_attempt_at).toISOString(),
  }
}

export function registerWebhooks(ctx: SandboxContext, api: ApiServer, saved?: unknown) {
  const {world, options} = ctx
  if (options.webhookUrl !== undefined || options.webhookEvents !== undefined) {
    const setting = webhookSetting(
      options.webhookUrl !== undefined ? options.webhookUrl : (world.app.webhook_url ?? null),
      options.webhookEvents !== undefined ? options.webhookEvents : (world.app.webhook_events ?? null),
    )
    world.app.webhook_url = setting.url
    world.app.webhook_events = setting.events
  }
  const dispatcher = new WebhookDispatcher(ctx, {deadlineMs: options.webhookDeadlineMs})
  dispatcher.restore(saved as DispatcherState | undefined)
  ctx.events.onEvent((event) => dispatcher.enqueue(event))

  const settingView = () => {
    const url = world.app.webhook_url ?? null
    const check = url === null ? null : checkWebhookUrl(url)
    return {url, events: world.app.webhook_events ?? [...EVENT_TYPES], loopback: check?.ok === true && check.loopback}
  }

  api.app.get('/_sandbox/webhook', async () => settingView())
  api.app.put('/_sandbox/webhook', async (request) => {
    const body = request.body
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw validationFailed([{path: 'body', message: 'must be a JSON object {url, events?}'}])
    const {url, events} = body as {url?: unknown; events?: unknown}
    if (url !== null && typeof url !== 'string') throw validationFailed([{path: 'url', message: 'is required: a URL, or null to remove the webhook'}])
    if (events !== undefined && events !== null && (!Array.isArray(events) || events.some((type) => typeof type !== 'string'))) {
      throw validationFailed([{path: 'events', message: `must be an array of event types: ${EVENT_TYPES.join(', ')}`}])
    }
    let setting
    try {
      setting = webhookSetting(url, (events as string[] | undefined) ?? null)
    } catch (error) {
      if (error instanceof WebhookSettingError) throw validationFailed([{path: error.setting, message: error.message}])
      throw error
    }
    world.app.webhook_url = setting.url
    world.app.webhook_events = setting.events
    return settingView()
  })

  api.app.get('/_sandbox/deliveries', async () => ({data: dispatcher.records.map(view)}))
  api.app.delete('/_sandbox/deliveries', async (_request, reply) => {
    dispatcher.records.length = 0
    return reply.code(204).send()
  })

  return {dispatcher, hooks: {save: (): DispatcherState => dispatcher.toJSON(), close: () => dispatcher.close()}}
}

export const webhooksFeature: SandboxFeature = {
  name: 'webhooks',
  register: (ctx, api, saved) => registerWebhooks(ctx, api, saved).hooks,
}
