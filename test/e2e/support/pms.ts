import {spawn, type ChildProcess} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

export const PMS_BIN = fileURLToPath(new URL('../../../bin/run.js', import.meta.url))

/** The file lock's module, tsc's or the bundle's chunk, as a loaded URL names it (a regular expression's source, for preloads). */
export const FILE_LOCK_URL = String.raw`/\/file-lock(?:-[\w-]+)?\.js$/`

export interface PmsResult {
  code: number
  stdout: string
  stderr: string
}

export interface RunOptions {
  env?: Record<string, string | undefined>
  /** Written to the child's stdin, which is then closed. */
  input?: string
  timeoutMs?: number
  /** Config and state directory; a fresh temporary one when not given. */
  configDir?: string
  /** An installed `pms` executable, run as a shell would run it, instead of this tree's bin/run.js. */
  bin?: string
}

/** The program and arguments of a `pms` run: an installed executable as it is, else bin/run.js under this node. */
export function pmsCommand(args: string[], bin?: string): [string, string[]] {
  return bin ? [bin, args] : [process.execPath, [PMS_BIN, ...args]]
}

/** A fresh, empty PMS_CONFIG_DIR. */
export function tempConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'pms-test-'))
}

/**
 * For runs against a sandbox that loses answers on purpose: the back-off between two sends of a
 * call is at most 200 ms (PMS_RETRY_MAX_WAIT_MS) instead of 8 s. How many sends are made, and so
 * what the run ends in, stays as it is.
 */
export const SHORT_BACKOFF = {PMS_RETRY_MAX_WAIT_MS: '200'} as const

/** Runs the built `pms` binary as a child process, never on a TTY. */
export function runPms(args: string[], options: RunOptions = {}): Promise<PmsResult> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    PMS_CONFIG_DIR: options.configDir ?? tempConfigDir(),
    PMS_ACCESS_TOKEN: undefined,
    PMS_APP_URL: undefined,
    PMS_PROFILE: undefined,
    PMS_CLIENT_ID: undefined,
    PMS_CLIENT_SECRET: undefined,
    NO_COLOR: '1',
    OCLIF_SKIP_NEW_VERSION_CHECK: 'true',
    ...options.env,
  }
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key]
  return new Promise((resolve, reject) => {
    const child = spawn(...pmsCommand(args, options.bin), {env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`pms ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, options.timeoutMs ?? 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code: code ?? -1, stdout, stderr})
    })
    child.stdin.end(options.input ?? '')
  })
}

export interface LoginRun {
  /** The authorize address printed on stderr. */
  authorizeUrl: Promise<string>
  write(text: string): void
  done: Promise<PmsResult>
}

/**
 * `pms login ...` (argv starts with `login`) as a child process with an open stdin, so that a test can paste into it; the
 * test plays the browser with the authorize address it prints. It is in `running` until it ends,
 * for the test to end it early (a waiting login holds its callback port), and killed after 80 s.
 */
export function spawnLogin(argv: string[], options: {env: NodeJS.ProcessEnv; running: Set<ChildProcess>; bin?: string}): LoginRun {
  const child = spawn(...pmsCommand(argv, options.bin), {env: options.env, stdio: ['pipe', 'pipe', 'pipe']})
  options.running.add(child)
  let stdout = ''
  let stderr = ''
  let announce!: (url: string) => void
  const authorizeUrl = new Promise<string>((resolve) => (announce = resolve))
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
    const found = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(stderr)
    if (found?.[1]) announce(found[1])
  })
  const done = new Promise<PmsResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`pms login timed out\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, 80_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      options.running.delete(child)
      resolve({code: code ?? -1, stdout, stderr})
    })
  })
  return {authorizeUrl: Promise.race([authorizeUrl, done.then((r) => Promise.reject(new Error(`pms login ended early: ${r.stderr}`)))]), write: (text) => child.stdin.write(text), done}
}
