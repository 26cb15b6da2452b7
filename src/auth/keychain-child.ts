/**
 * Runs one keychain call for the parent pms process and exits. The parent cannot bound a call
 * made in its own process: on Linux, opening the Secret Service on a D-Bus that accepts but never
 * answers blocks the JavaScript thread itself, so no timer fires and no signal handler runs, and
 * a worker thread stuck there keeps even process.exit() waiting. A child can simply be killed.
 *
 * Protocol: one JSON request on stdin ({op, service, account, password?}); one JSON answer on
 * stdout ({ok: true, value} or {ok: false, message}). Secrets travel only through the pipes.
 */
import {AsyncEntry} from '@napi-rs/keyring'

interface Request {
  op: 'get' | 'set' | 'delete'
  service: string
  account: string
  password?: string
}

async function answer(request: Request): Promise<unknown> {
  // Linux: the Secret Service by name, never the kernel keyring, which forgets everything at logout.
  const entry = new AsyncEntry(request.service, request.account, {linux: {store: 'secret-service'}})
  if (request.op === 'get') return (await entry.getPassword()) ?? null
  if (request.op === 'set') return entry.setPassword(request.password ?? '').then(() => null)
  return entry.deleteCredential()
}

let input = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk: string) => (input += chunk))
process.stdin.on('end', () => {
  answer(JSON.parse(input) as Request).then(
    (value) => process.stdout.write(JSON.stringify({ok: true, value})),
    (error: unknown) => process.stdout.write(JSON.stringify({ok: false, message: error instanceof Error ? error.message : String(error)})),
  )
})
