import {spawn} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import {PMS_BIN, tempConfigDir} from './support/pms.js'

describe('pms sandbox start on a terminal-like run (without --json)', () => {
  it('says how to log in to it with a command that is valid shell: its address, client id and its own throwaway secret (on stdout already)', async () => {
    const child = spawn(process.execPath, [PMS_BIN, 'sandbox', 'start', '--port', '0'], {
      env: {...process.env, PMS_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1', OCLIF_SKIP_NEW_VERSION_CHECK: 'true'},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    const hinted = new Promise<void>((resolve) => {
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk
        if (stderr.includes('Log in from another terminal') && stderr.endsWith('\n')) resolve()
      })
    })
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve))
    await Promise.race([hinted, closed])
    child.kill('SIGINT')
    expect(await closed).toBe(0)
    const field = (name: string) => stdout.match(new RegExp(`^${name}\\s+(\\S+)$`, 'm'))?.[1]
    expect(stderr).toContain(`Log in from another terminal: pms login --app-url ${field('app_url')} --client-id ${field('client_id')} --client-secret ${field('client_secret')}\n`)
    // Nothing in it a shell would take for a redirection or a placeholder.
    expect(stderr).not.toMatch(/[<>]/)
  }, 30_000)
})
