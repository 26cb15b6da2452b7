import type {FastifyInstance} from 'fastify'
import {afterEach, beforeEach, expect, it} from 'vitest'
import {connect, makeSandbox} from './harness.js'

let app: FastifyInstance
let appUrl: string
let executions = 0

beforeEach(async () => {
  executions = 0
  app = makeSandbox()
  app.sandbox.api.route({
    method: 'POST',
    url: '/test-writes',
    permission: 'restrictions.write',
    limitClass: 'write',
    idempotent: {replayRefusals: false},
    handler: () => ({status: 202, body: {execution: ++executions}}),
  })
  await app.listen({host: '127.0.0.1', port: 0})
  const address = app.server.address()
  appUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
})
afterEach(async () => {
  await app.close()
})

it('drop_response closes the connection without an answer after the work is done; the replay with the same key returns the stored answer', async () => {
  const tokens = await connect(app)
  await fetch(`${appUrl}/_sandbox/faults`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({drop_response: 1})})
  const send = () =>
    fetch(`${appUrl}/api/v1/test-writes`, {
      method: 'POST',
      headers: {authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', 'idempotency-key': 'drop-1'},
      body: JSON.stringify({value: 1}),
    })
  await expect(send()).rejects.toThrow()
  expect(executions).toBe(1)
  await fetch(`${appUrl}/_sandbox/faults`, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'})
  const replay = await send()
  expect(replay.status).toBe(202)
  expect(await replay.json()).toEqual({execution: 1})
  const log = ((await (await fetch(`${appUrl}/_sandbox/requests`)).json()) as {data: Array<{path: string; status: number; dropped: boolean}>}).data
  expect(log.filter((entry) => entry.path === '/api/v1/test-writes').map(({status, dropped}) => ({status, dropped}))).toEqual([
    {status: 202, dropped: true},
    {status: 202, dropped: false},
  ])
})

it('drop_response also loses token answers after the refresh rotated (the lost-refresh case of the contract)', async () => {
  const tokens = await connect(app)
  const {client_id, client_secret} = app.sandbox.ctx.world.app
  await fetch(`${appUrl}/_sandbox/faults`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({drop_response: 1})})
  const refresh = () =>
    fetch(`${appUrl}/api/oauth/token`, {
      method: 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id, client_secret}).toString(),
    })
  await expect(refresh()).rejects.toThrow()
  await fetch(`${appUrl}/_sandbox/faults`, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'})
  const retried = await refresh()
  expect(retried.status).toBe(400)
  expect(((await retried.json()) as {error: string}).error).toBe('invalid_grant')
})
