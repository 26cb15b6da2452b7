import {spawn, type ChildProcess} from 'node:child_process'
import {createInterface} from 'node:readline'
import type {LoggedRequest as SandboxLoggedRequest} from '../../../src/sandbox/request-log.js'
import {pmsCommand} from './pms.js'

export interface StartedSandbox {
  appUrl: string
  clientId: string
  clientSecret: string
  webhookSecret: string
  redirectUri: string
  /** The child process (for tests of signals and exit codes). */
  child: ChildProcess
  /** Everything the sandbox wrote on stderr so far. */
  stderr(): string
  /** Sends SIGTERM and waits for the exit; resolves with the exit code. */
  stop(): Promise<number | null>
}

export interface TokenPair {
  access_token: string
  token_type: string
  expires_in: number
  refresh_token: string
}

/** An entry of GET /_sandbox/requests, as the sandbox serves it (times as ISO strings). */
export type LoggedRequest = Omit<SandboxLoggedRequest, 'at'> & {at: string}

/** Spawns the built binary (or an installed `pms`: options.bin): `pms sandbox start --port 0 --json ...args`, resolved once it listens. */
export function startSandbox(args: string[] = [], options: {timeoutMs?: number; bin?: string; env?: Record<string, string>} = {}): Promise<StartedSandbox> {
  const child = spawn(...pmsCommand(['sandbox', 'start', '--port', '0', '--json', ...args], options.bin), {
    env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', NO_COLOR: '1', ...options.env},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`sandbox did not start in time\nstderr: ${stderr}`))
    }, options.timeoutMs ?? 30_000)
    const lines = createInterface({input: child.stdout!})
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`sandbox exited with ${code} before listening\nstderr: ${stderr}`))
    })
    lines.once('line', (line) => {
      clearTimeout(timer)
      const info = JSON.parse(line) as Record<string, string>
      resolve({
        appUrl: info.app_url as string,
        clientId: info.client_id as string,
        clientSecret: info.client_secret as string,
        webhookSecret: info.webhook_secret as string,
        redirectUri: info.redirect_uri as string,
        child,
        stderr: () => stderr,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
          return exited
        },
      })
    })
  })
}

async function adminJson<T>(appUrl: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(appUrl + path, {
    method,
    headers: body === undefined ? {} : {'content-type': 'application/json'},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
  return JSON.parse(text) as T
}

/** A consent without a browser: POST /_sandbox/connect; answers a token pair like the token endpoint. */
export function connect(appUrl: string, body?: {account_id?: string; permissions?: string[]; property_ids?: string[]}): Promise<TokenPair> {
  return adminJson<TokenPair>(appUrl, 'POST', '/_sandbox/connect', body ?? {})
}

/** Every API and OAuth call the sandbox received, oldest first. */
export async function sandboxRequests(appUrl: string): Promise<LoggedRequest[]> {
  return (await adminJson<{data: LoggedRequest[]}>(appUrl, 'GET', '/_sandbox/requests')).data
}

/** No fault left, and sandbox time past the send and write windows: each test starts with nothing failing and its limits unspent. */
export async function clearFaultsAndWindows(appUrl: string): Promise<void> {
  await sandboxAdmin(appUrl, '/_sandbox/faults', {})
  await sandboxAdmin(appUrl, '/_sandbox/clock', {advance_seconds: 61})
}

/** POST to another admin endpoint (/_sandbox/faults, /_sandbox/operator, /_sandbox/host, /_sandbox/clock, ...). */
export function sandboxAdmin<T = unknown>(appUrl: string, path: string, body: unknown): Promise<T> {
  return adminJson<T>(appUrl, 'POST', path, body)
}

/** The accounts of the sandbox's owner (GET /_sandbox), first the one a plain consent connects. */
export async function sandboxAccounts(appUrl: string): Promise<{id: string; name: string}[]> {
  return (await adminJson<{accounts: {id: string; name: string}[]}>(appUrl, 'GET', '/_sandbox')).accounts
}

/** The ids of the first account's Properties (120 in the default seed), sorted: what a connection to it lists. */
export async function firstAccountPropertyIds(appUrl: string): Promise<string[]> {
  const [first] = await sandboxAccounts(appUrl)
  const listed = (await (await fetch(`${appUrl}/_sandbox/accounts/${first!.id}/properties`)).json()) as {data: {id: string}[]}
  return listed.data.map((p) => p.id).sort()
}
