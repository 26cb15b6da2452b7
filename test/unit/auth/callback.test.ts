import {PassThrough} from 'node:stream'
import {createServer} from 'node:http'
import {afterEach, describe, expect, it} from 'vitest'
import {escapeHtml, renderPage, startCallbackServer, type CallbackServer} from '../../../src/auth/callback-server.js'
import {PortInUseError} from '../../../src/auth/errors.js'
import {judgeCallback} from '../../../src/auth/login.js'
import {paramsOfPastedAddress, readPastedCallback} from '../../../src/auth/paste.js'
import type {RedirectTarget} from '../../../src/auth/urls.js'

const STATE = 'expected-state'
let server: CallbackServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
})

async function start(): Promise<{server: CallbackServer; base: string}> {
  const target: RedirectTarget = {uri: 'http://localhost:0/callback', hostname: 'localhost', listenHost: '127.0.0.1', port: 0, path: '/callback'}
  server = await startCallbackServer(target, (params) => judgeCallback(params, STATE))
  return {server, base: `http://127.0.0.1:${server.port}`}
}

describe('callback server', () => {
  it('ignores other paths (404) and keeps waiting', async () => {
    const {server, base} = await start()
    const answer = await fetch(`${base}/favicon.ico`)
    expect(answer.status).toBe(404)
    const ok = await fetch(`${base}/callback?code=c1&state=${STATE}`)
    expect(ok.status).toBe(200)
    expect((await server.result).params.get('code')).toBe('c1')
  })

  it('answers only GET on the callback path (405 with Allow: GET)', async () => {
    const {server, base} = await start()
    const answer = await fetch(`${base}/callback?code=c1&state=${STATE}`, {method: 'POST'})
    expect(answer.status).toBe(405)
    expect(answer.headers.get('allow')).toBe('GET')
    await fetch(`${base}/callback?code=c2&state=${STATE}`)
    expect((await server.result).params.get('code')).toBe('c2')
  })

  it('refuses a callback whose state does not match, whatever it carries', async () => {
    const {server, base} = await start()
    const answer = await fetch(`${base}/callback?code=stolen&state=other`)
    expect(answer.status).toBe(400)
    expect(await answer.text()).toContain('state mismatch')
    const {outcome} = await server.result
    expect(outcome.ok).toBe(false)
  })

  it('escapes everything it echoes from the query', async () => {
    const {base} = await start()
    const evil = '<script>alert(1)</script>'
    const answer = await fetch(`${base}/callback?error=server_error&error_description=${encodeURIComponent(evil)}&state=${STATE}`)
    const page = await answer.text()
    expect(page).not.toContain('<script>')
    expect(page).toContain('&#60;script&#62;')
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(answer.headers.get('cache-control')).toBe('no-store')
  })

  it('tells the browser to go back to the terminal', async () => {
    const {base} = await start()
    const page = await (await fetch(`${base}/callback?code=c&state=${STATE}`)).text()
    expect(page).toContain('go back to the terminal')
  })

  it('takes one answer only: after the first callback every request gets 410 and is never judged', async () => {
    const target: RedirectTarget = {uri: 'http://localhost:0/callback', hostname: 'localhost', listenHost: '127.0.0.1', port: 0, path: '/callback'}
    const judged: string[] = []
    server = await startCallbackServer(target, (params) => {
      judged.push(params.get('code') ?? '')
      return judgeCallback(params, STATE)
    })
    const base = `http://127.0.0.1:${server.port}`
    expect((await fetch(`${base}/callback?code=c1&state=${STATE}`)).status).toBe(200)
    const late = await fetch(`${base}/callback?code=c2&state=${STATE}`)
    expect(late.status).toBe(410)
    expect(await late.text()).toContain('already received its answer')
    expect(judged).toEqual(['c1'])
    expect((await server.result).params.get('code')).toBe('c1')
  })

  it('names the port and --redirect-uri when the port is taken', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as {port: number}).port
    try {
      const target: RedirectTarget = {uri: `http://localhost:${port}/callback`, hostname: 'localhost', listenHost: '127.0.0.1', port, path: '/callback'}
      const failure = await startCallbackServer(target, () => ({ok: true, message: ''})).catch((error: unknown) => error)
      expect(failure).toBeInstanceOf(PortInUseError)
      expect((failure as Error).message).toContain(String(port))
      expect((failure as PortInUseError).suggestion).toContain('--redirect-uri')
    } finally {
      blocker.close()
    }
  })
})

describe('callback judgement', () => {
  it('checks state before anything else', () => {
    expect(judgeCallback(new URLSearchParams({error: 'access_denied', state: 'x'}), STATE).message).toContain('state mismatch')
    expect(judgeCallback(new URLSearchParams({code: 'c'}), STATE).ok).toBe(false)
  })

  it('turns access_denied into a refusal', () => {
    const outcome = judgeCallback(new URLSearchParams({error: 'access_denied', state: STATE}), STATE)
    expect(outcome).toEqual({ok: false, message: 'The connection was refused, so pms is not connected.'})
  })

  it('accepts a code with the right state', () => {
    expect(judgeCallback(new URLSearchParams({code: 'c', state: STATE}), STATE).ok).toBe(true)
  })

  it('renders pages with every value escaped', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&\``)).toBe('&#60;a href=&#34;x&#34; onclick=&#39;y&#39;&#62;&#38;&#96;')
    expect(renderPage('<t>', '<m>')).not.toMatch(/<t>|<m>/)
  })
})

describe('pasted redirect address', () => {
  it('takes the whole address or a bare query', () => {
    expect(paramsOfPastedAddress('http://localhost:8765/callback?code=abc&state=s')?.get('code')).toBe('abc')
    expect(paramsOfPastedAddress('code=abc&state=s')?.get('state')).toBe('s')
    expect(paramsOfPastedAddress('http://localhost:8765/callback?error=access_denied&state=s')?.get('error')).toBe('access_denied')
  })

  it('ignores lines without code or error', () => {
    expect(paramsOfPastedAddress('hello')).toBeUndefined()
    expect(paramsOfPastedAddress('http://localhost:8765/callback')).toBeUndefined()
  })
})

describe('reading pasted addresses', () => {
  it('asks once at the start and again after every paste that is not the answer of this login', async () => {
    const input = new PassThrough()
    const asked: Array<string | undefined> = []
    const pasted = readPastedCallback(input, {belongs: (params) => params.get('state') === 'this', ask: (problem) => asked.push(problem)})
    input.write('hello\n')
    input.write('http://localhost:8765/callback?code=abc&state=other\n')
    input.write('http://localhost:8765/callback?code=abc&state=this\n')
    const params = await pasted.result
    pasted.stop()
    expect(params.get('code')).toBe('abc')
    expect(asked).toHaveLength(3)
    expect(asked[0]).toBeUndefined()
    expect(asked[1]).toMatch(/no code or error/)
    expect(asked[2]).toMatch(/another login/)
  })
})
