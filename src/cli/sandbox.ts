import {DEFAULT_REDIRECT_URI} from '../auth/urls.js'
import {ExitCode, PmsError, UsageError} from '../errors.js'
import {shellCommand} from '../text/shell.js'
import type {RunContext} from '../run/context.js'
import {untilSignal} from '../run/signals.js'

export interface SandboxRunOptions {
  port: number
  seed: number
  properties: number
  bookings: number
  /** As typed: checked here so the message can name the flag. */
  speed: string
  autoApprove: boolean
  rateLimits: boolean
  statePath?: string
  /** --evolve: answers as version 1 may write them later. */
  evolve?: boolean
  /** --redirect-uri: more redirect URIs registered for the App. */
  redirectUris?: readonly string[]
  /** --webhook-url: the App Webhook (http accepted on loopback). */
  webhookUrl?: string
  /** --events: comma-separated event types the App subscribes to (default every type). */
  events?: string
}

/**
 * Runs the sandbox until SIGINT or SIGTERM: starts it, prints where it listens (one JSON line with
 * --json, for scripts that wait on it), waits for a signal, and closes it (saving --state).
 */
export async function runSandbox(ctx: RunContext, options: SandboxRunOptions): Promise<void> {
  const speed = Number(options.speed)
  if (!Number.isFinite(speed) || speed <= 0) {
    throw new UsageError(`--speed must be a positive number, got ${options.speed}`, {
      suggestion: 'pass --speed 1 for real time or --speed 60 for a minute per second',
    })
  }
  // Loaded here, not at the top: other commands must not pay for the server at startup.
  const {startSandbox, SandboxStateError, WebhookSettingError, redirectUriProblem} = await import('../sandbox/index.js')
  for (const uri of options.redirectUris ?? []) {
    const problem = redirectUriProblem(uri)
    if (problem) throw new UsageError(`--redirect-uri ${uri} ${problem}`, {suggestion: 'pass the exact address pms login will use, such as http://localhost:8766/callback'})
  }
  const webhookEvents = options.events === undefined ? undefined : options.events.split(',').map((type) => type.trim()).filter(Boolean)
  let sandbox
  try {
    sandbox = await startSandbox({
      port: options.port,
      seed: options.seed,
      properties: options.properties,
      bookings: options.bookings,
      speed,
      autoApprove: options.autoApprove,
      rateLimits: options.rateLimits,
      evolve: options.evolve,
      statePath: options.statePath,
      redirectUris: options.redirectUris,
      ...(options.webhookUrl === undefined ? {} : {webhookUrl: options.webhookUrl}),
      ...(webhookEvents === undefined ? {} : {webhookEvents}),
      trace: ctx.debug ? (line) => ctx.io.err(`${line}\n`) : undefined,
    })
  } catch (error) {
    if (error instanceof WebhookSettingError) {
      throw new UsageError(error.message, {
        suggestion:
          error.setting === 'url'
            ? '--webhook-url https://hooks.example.com/pms, or http://127.0.0.1:PORT/PATH for a receiver on this machine'
            : '--events booking.created,booking.updated (comma-separated event types)',
      })
    }
    if (error instanceof SandboxStateError) {
      throw new UsageError(error.message, {suggestion: `pass another --state FILE, or remove ${error.path} to start again from the seed`})
    }
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new PmsError(`Port ${options.port} on 127.0.0.1 is already in use.`, {
        code: 'port_in_use',
        exitCode: ExitCode.failure,
        suggestion: 'pass --port 0 to pick a free port',
      })
    }
    throw error
  }
  // Listening for signals before printing: whoever reads the line may stop us at once.
  const stopped = untilSignal()
  const {io} = ctx
  if (ctx.json) {
    io.out(
      JSON.stringify({
        app_url: sandbox.appUrl,
        client_id: sandbox.clientId,
        client_secret: sandbox.clientSecret,
        webhook_secret: sandbox.webhookSecret,
        redirect_uri: sandbox.redirectUri,
        admin_url: sandbox.adminUrl,
        webhook_url: sandbox.webhook.url,
      }) + '\n',
    )
  } else {
    io.out(renderSandboxInfo(sandbox))
    io.err(`Sandbox listening (speed x${speed}, rate limits ${options.rateLimits ? 'on' : 'off'}${options.evolve ? ', evolved answers' : ''}${options.statePath ? `, state in ${options.statePath}` : ''}). Stop with Ctrl+C.\n`)
    // The first thing anyone does next, ready to paste: the sandbox's own throwaway secret is on stdout already.
    io.err(`Log in from another terminal: ${sandboxLoginCommand(sandbox)}\n`)
  }
  if (sandbox.webhook.url !== null) io.err(webhookNotice(sandbox.webhook))
  await stopped
  await sandbox.close()
}

/** The login into this sandbox as valid shell, with the values it was started with. */
export function sandboxLoginCommand(sandbox: Pick<SandboxInfo, 'appUrl' | 'clientId' | 'clientSecret' | 'redirectUri'>): string {
  const redirect = sandbox.redirectUri === DEFAULT_REDIRECT_URI ? [] : ['--redirect-uri', sandbox.redirectUri]
  return shellCommand(['pms', 'login', '--app-url', sandbox.appUrl, '--client-id', sandbox.clientId, '--client-secret', sandbox.clientSecret, ...redirect])
}

export interface SandboxInfo {
  appUrl: string
  clientId: string
  clientSecret: string
  webhookSecret: string
  redirectUri: string
  adminUrl: string
  webhook?: {url: string | null}
}

export function renderSandboxInfo(sandbox: SandboxInfo): string {
  return (
    [
      `app_url         ${sandbox.appUrl}`,
      `base_url        ${sandbox.appUrl}/api/v1`,
      `client_id       ${sandbox.clientId}`,
      `client_secret   ${sandbox.clientSecret}`,
      `webhook_secret  ${sandbox.webhookSecret}`,
      `redirect_uri    ${sandbox.redirectUri}`,
      `admin_url       ${sandbox.adminUrl}`,
      ...(sandbox.webhook?.url ? [`webhook_url     ${sandbox.webhook.url}`] : []),
    ].join('\n') + '\n'
  )
}

/** Says where App Events go, and that loopback http is a sandbox-only allowance. */
export function webhookNotice(webhook: {url: string | null; events: string[] | null; loopback: boolean}): string {
  const types = webhook.events === null ? 'every event type' : webhook.events.join(', ')
  const lines = [`App Events (${types}) are POSTed to ${webhook.url}, signed with the webhook_secret; GET /_sandbox/deliveries lists every attempt.\n`]
  if (webhook.loopback) {
    lines.push('Note: the sandbox accepts this loopback URL; the service accepts only https on port 443 with a public domain name.\n')
  }
  return lines.join('')
}
