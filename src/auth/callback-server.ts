import type {IncomingMessage, Server, ServerResponse} from 'node:http'
import {PortInUseError} from './errors.js'
import type {RedirectTarget} from './urls.js'

/** What the browser (or a pasted address) brought back to the redirect URI. */
export type CallbackParams = URLSearchParams

export interface CallbackOutcome {
  /** Text for the page the browser lands on. */
  ok: boolean
  message: string
}

/**
 * Decides what a callback means. Called for every request on the callback path that carries
 * `code`, `state` or `error`; its answer is shown to the browser (escaped).
 */
export type CallbackJudge = (params: CallbackParams) => CallbackOutcome

export interface CallbackServer {
  /** The port listened on (the redirect URI's). */
  readonly port: number
  /** The first callback the judge accepted or refused (refusals end the login too). */
  readonly result: Promise<{params: CallbackParams; outcome: CallbackOutcome}>
  close(): Promise<void>
}

const SECURITY_HEADERS = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (char) => `&#${char.charCodeAt(0)};`)
}

export function renderPage(title: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body style="font-family: sans-serif; max-width: 36em; margin: 4em auto">
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
<p>You can close this tab and go back to the terminal.</p>
</body></html>
`
}

/**
 * Answers one request. Only GET on the callback path takes part in the login; everything else
 * is answered and ignored, so a favicon request or a port scan cannot end or spoof the login.
 */
export function handleCallbackRequest(
  request: Pick<IncomingMessage, 'method' | 'url'>,
  response: ServerResponse,
  target: Pick<RedirectTarget, 'path'>,
  judge: CallbackJudge,
): {params: CallbackParams; outcome: CallbackOutcome} | undefined {
  const url = new URL(request.url ?? '/', 'http://callback.invalid')
  const send = (status: number, title: string, message: string, extra: Record<string, string> = {}) => {
    response.writeHead(status, {'Content-Type': 'text/html; charset=utf-8', ...SECURITY_HEADERS, ...extra})
    response.end(request.method === 'HEAD' ? undefined : renderPage(title, message))
  }
  if (url.pathname !== target.path) {
    send(404, 'Not found', 'This address is not part of the pms login.')
    return undefined
  }
  if (request.method !== 'GET') {
    send(405, 'Method not allowed', 'The login callback accepts GET only.', {Allow: 'GET'})
    return undefined
  }
  const params = url.searchParams
  if (!params.has('code') && !params.has('error') && !params.has('state')) {
    send(400, 'Nothing to do', 'This address expects the redirect of the login, with code and state.')
    return undefined
  }
  const outcome = judge(params)
  send(outcome.ok ? 200 : 400, outcome.ok ? 'pms is connected' : 'pms login failed', outcome.message)
  return {params, outcome}
}

/** Listens on exactly the redirect URI's host and port; closes itself after the first callback. */
export async function startCallbackServer(target: RedirectTarget, judge: CallbackJudge): Promise<CallbackServer> {
  let settle!: (value: {params: CallbackParams; outcome: CallbackOutcome}) => void
  const result = new Promise<{params: CallbackParams; outcome: CallbackOutcome}>((resolve) => (settle = resolve))
  let done = false
  // Not an import of node:http: building its namespace reads the lazy WebSocket getters and so loads
  // Node's own undici (about 100 ms of CPU), which nothing here uses.
  const server: Server = process.getBuiltinModule('node:http').createServer((request, response) => {
    if (done) {
      response.writeHead(410, {'Content-Type': 'text/html; charset=utf-8', ...SECURITY_HEADERS, Connection: 'close'})
      response.end(renderPage('Login already finished', 'This login has already received its answer.'))
      return
    }
    const handled = handleCallbackRequest(request, response, target, judge)
    if (handled) {
      done = true
      settle(handled)
    }
  })
  server.requestTimeout = 10_000
  server.headersTimeout = 10_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') reject(new PortInUseError(target.port, target.uri, error))
      else reject(error)
    })
    server.listen({host: target.listenHost, port: target.port, exclusive: true}, () => resolve())
  })
  const address = server.address()
  return {
    port: typeof address === 'object' && address ? address.port : target.port,
    result,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
