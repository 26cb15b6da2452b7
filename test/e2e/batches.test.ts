import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {runPms} from './support/pms.js'
import {connect, startSandbox, type StartedSandbox} from './support/sandbox.js'

let sandbox: StartedSandbox
const env = async () => ({PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: (await connect(sandbox.appUrl)).access_token})

beforeAll(async () => {
  sandbox = await startSandbox(['--speed', '60', '--properties', '5'])
})
afterAll(async () => {
  await sandbox?.stop()
})

describe('batches get and wait', () => {
  it('a batch that does not exist (or belongs to another connection) is not_found, exit 2', async () => {
    for (const verb of ['get', 'wait']) {
      const result = await runPms(['batches', verb, '6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e'], {env: await env()})
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('not_found')
    }
  })

  it('needs the batch id', async () => {
    const result = await runPms(['batches', 'get'], {env: await env()})
    expect(result.code).toBe(2)
  })
})
