import {spawn, type ChildProcess} from 'node:child_process'
import {createInterface} from 'node:readline'
import {Webhook} from 'standardwebhooks'
import {PMS_BIN, tempConfigDir} from './pms.js'

export interface StartedListener {
  url: string
  /** The inbox: a file, or a postgres:// address without its password. */
  store: string
  child: ChildProcess
  stderr(): string
  stdout(): string
  /** Sends SIGTERM and waits for the exit; resolves with the exit code. */
  stop(): Promise<number | null>
}

/** Spawns the built binary: `pms webhooks listen --json ...args` with PMS_WEBHOOK_SECRET, resolved once it listens. */
export function startListen(args: string[], options: {secret: string; configDir?: string; env?: Record<string, string>}): Promise<StartedListener> {
  const child = spawn(process.execPath, [PMS_BIN, 'webhooks', 'listen', '--json', ...args], {
    env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', NO_COLOR: '1', PMS_WEBHOOK_SECRET: options.secret, PMS_CONFIG_DIR: options.configDir ?? tempConfigDir(), ...options.env},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  let stdout = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`pms webhooks listen did not start in time\nstderr: ${stderr}`))
    }, 30_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`pms webhooks listen exited with ${code} before listening\nstderr: ${stderr}`))
    })
    const lines = createInterface({input: child.stdout!})
    lines.on('line', (line) => (stdout += line + '\n'))
    lines.once('line', (line) => {
      clearTimeout(timer)
      const info = JSON.parse(line) as {url: string; store: string}
      resolve({
        url: info.url,
        store: info.store,
        child,
        stderr: () => stderr,
        stdout: () => stdout,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
          return exited
        },
      })
    })
  })
}

export interface SignedEvent {
  id: string
  body: string
  headers: Record<string, string>
}

/** An App Event of the contract's Payload table, signed by the independent standardwebhooks package. */
export function signedEvent(secret: string, options: {id?: string; at?: Date; type?: string} = {}): SignedEvent {
  const id = options.id ?? crypto.randomUUID()
  const at = options.at ?? new Date()
  const body = JSON.stringify({
    id,
    type: options.type ?? 'booking.created',
    created_at: at.toISOString(),
    connection_id: 'conn-1',
    account_id: 'acc-1',
    data: {object: 'booking', id: crypto.randomUUID()},
  })
  const headers = {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  }
  return {id, body, headers}
}

/** POSTs a delivery as it is; answers the status and the body. */
export async function deliver(url: string, event: {body: string; headers: Record<string, string>}): Promise<{status: number; body: string}> {
  const response = await fetch(url, {method: 'POST', headers: event.headers, body: event.body})
  return {status: response.status, body: await response.text()}
}
