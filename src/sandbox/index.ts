/** The sandbox's public face: build an app, or start one listening on 127.0.0.1. */
import type {FastifyInstance} from 'fastify'
import {buildSandbox, type SandboxOptions} from './app.js'
import {DEFAULT_REDIRECT_URI} from './seed.js'
import {checkWebhookUrl} from './webhooks/url.js'

export type {SandboxOptions} from './app.js'
export {redirectUriProblem} from './seed.js'
export {SandboxStateError} from './state.js'
export {WebhookSettingError} from './webhooks/feature.js'

export interface RunningSandbox {
  app: FastifyInstance
  appUrl: string
  adminUrl: string
  clientId: string
  clientSecret: string
  webhookSecret: string
  redirectUri: string
  /** The App Webhook (null: none) and whether it is an http or https URL on loopback, which only the sandbox accepts. */
  webhook: {url: string | null; events: string[] | null; loopback: boolean}
  close(): Promise<void>
}

export async function startSandbox(options: Partial<SandboxOptions> & {port: number; host?: string}): Promise<RunningSandbox> {
  const app = buildSandbox(options)
  const host = options.host ?? '127.0.0.1'
  await app.listen({host, port: options.port})
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  const appUrl = `http://${host}:${port}`
  const {world} = app.sandbox.ctx
  return {
    app,
    appUrl,
    adminUrl: `${appUrl}/_sandbox`,
    clientId: world.app.client_id,
    clientSecret: world.app.client_secret,
    webhookSecret: world.app.webhook_secret,
    webhook: webhookInfo(world.app.webhook_url ?? null, world.app.webhook_events ?? null),
    redirectUri: world.app.redirect_uris.includes(DEFAULT_REDIRECT_URI) ? DEFAULT_REDIRECT_URI : (world.app.redirect_uris[0] as string),
    close: () => app.close(),
  }
}

function webhookInfo(url: string | null, events: string[] | null): RunningSandbox['webhook'] {
  const check = url === null ? null : checkWebhookUrl(url)
  return {url, events, loopback: check?.ok === true && check.loopback}
}
