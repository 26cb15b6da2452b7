import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import type {FastifyInstance} from 'fastify'
import {connect, get, makeSandbox, START, token} from './harness.js'
import {createSandboxClock} from '../../../src/sandbox/clock.js'

const open: FastifyInstance[] = []
afterEach(async () => {
  for (const app of open.splice(0)) await app.close()
})

describe('--state FILE', () => {
  it('keeps connections and tokens across a restart, and the file holds no usable token', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'pms-sandbox-')), 'state.json')
    const first = makeSandbox({statePath})
    const tokens = await connect(first)
    await first.close()
    const text = readFileSync(statePath, 'utf8')
    expect(text).not.toContain(tokens.access_token)
    expect(text).not.toContain(tokens.refresh_token)

    const second = makeSandbox({statePath, seed: 99})
    open.push(second)
    expect((await get(second, '/api/v1/properties?limit=1', tokens.access_token)).statusCode).toBe(200)
    // the saved world wins over --seed
    expect(second.sandbox.ctx.world.seed).toBe(1)
  })

  it('a restart never moves sandbox time backwards', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'pms-sandbox-')), 'state.json')
    const first = makeSandbox({statePath, now: START + 10 * 86_400_000})
    await first.close()
    const second = makeSandbox({statePath, now: undefined})
    open.push(second)
    expect(second.sandbox.clock.now()).toBeGreaterThanOrEqual(START + 10 * 86_400_000)
  })

  it('refuses a file that is not a sandbox state', () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'pms-sandbox-')), 'state.json')
    writeFileSync(statePath, '{"hello":1}')
    expect(() => makeSandbox({statePath})).toThrow(/not a sandbox state/)
  })
})

describe('the sandbox clock', () => {
  it('runs speed times faster than real time from the start instant', () => {
    let real = 1_000
    const clock = createSandboxClock({speed: 60, start: START, realNow: () => real})
    expect(clock.now()).toBe(START)
    real += 1_000
    expect(clock.now()).toBe(START + 60_000)
    clock.advance(5_000)
    expect(clock.now()).toBe(START + 65_000)
    expect(clock.toRealMs(60_000)).toBe(1_000)
  })

  it('refuses a speed that is not positive and never moves backwards', () => {
    expect(() => createSandboxClock({speed: 0})).toThrow()
    expect(() => createSandboxClock({speed: -1})).toThrow()
    expect(() => createSandboxClock().advance(-1)).toThrow()
  })
})

describe('saving forgets dead credentials only', () => {
  it('expired access tokens and codes leave the state file; a rotated refresh token stays until its idle expiry so its reuse is still caught', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'pms-sandbox-')), 'state.json')
    const first = makeSandbox({statePath})
    const tokens = await connect(first)
    const rotated = await token(first, {grant_type: 'refresh_token', refresh_token: tokens.refresh_token})
    expect(rotated.statusCode).toBe(200)
    first.sandbox.clock.advance(2 * 3600 * 1000)
    await first.close()
    const saved = JSON.parse(readFileSync(statePath, 'utf8')).world
    expect(Object.keys(saved.access_tokens)).toHaveLength(0)
    expect(Object.keys(saved.codes)).toHaveLength(0)
    expect(Object.keys(saved.refresh_tokens)).toHaveLength(2)

    const second = makeSandbox({statePath, now: undefined})
    open.push(second)
    const reuse = await token(second, {grant_type: 'refresh_token', refresh_token: tokens.refresh_token})
    expect(reuse.json().error).toBe('invalid_grant')
    const afterReuse = await token(second, {grant_type: 'refresh_token', refresh_token: rotated.json().refresh_token})
    expect(afterReuse.json().error).toBe('invalid_grant')
  })
})
