import {describe, expect, it} from 'vitest'
import {UsageError} from '../../../src/errors.js'
import {ApiError, UnexpectedResponseError} from '../../../src/client/errors.js'
import type {RawRequest, RawResponse} from '../../../src/client/index.js'
import {buildRawRequest, formatBody, formatHead, readInput, resolveFieldFiles, runRaw} from '../../../src/cli/raw-request.js'

describe('pms api request building', () => {
  it('GET fields become query parameters; name[] repeats', () => {
    const request = buildRawRequest({method: 'get', path: '/restrictions', fields: ['property_id[]=a', 'property_id[]=b', 'from=2026-12-01', 'limit=5']})
    expect(request).toMatchObject({method: 'GET', path: '/restrictions', query: {'property_id[]': ['a', 'b'], from: '2026-12-01', limit: '5'}})
    expect(request.body).toBeUndefined()
  })

  it('POST fields build a JSON body with typed values, lists and nested objects', () => {
    const request = buildRawRequest({
      method: 'POST',
      path: '/restriction-batches',
      fields: ['dry_run=true', 'entries[][property_id]=p1', 'tags[]=a', 'tags[]=b', 'values[rate]=120.5', 'values[note]=null'],
      rawFields: ['text=123'],
    })
    expect(request.body).toEqual({
      dry_run: true,
      entries: [{property_id: 'p1'}],
      tags: ['a', 'b'],
      values: {rate: 120.5, note: null},
      text: '123',
    })
  })

  it('entries[][name] fills the last object of the list until a name comes again, as gh api and Rack read it', () => {
    const request = buildRawRequest({
      method: 'POST',
      path: '/restriction-batches',
      fields: ['entries[][values][min_stay]=3'],
      rawFields: ['entries[][property_id]=p1', 'entries[][from]=2026-12-01', 'entries[][property_id]=p2', 'entries[][values][rate]=9'],
    })
    expect(request.body).toEqual({
      entries: [
        {values: {min_stay: 3}, property_id: 'p1', from: '2026-12-01'},
        {property_id: 'p2', values: {rate: '9'}},
      ],
    })
  })

  it('name[] without a value is an empty list in a body, as in gh api, and leaves no trace in a query', () => {
    expect(buildRawRequest({method: 'POST', path: '/x', rawFields: ['entries[]', 'tags[]', 'tags[]=a', 'values[list][]']}).body).toEqual({
      entries: [],
      tags: ['a'],
      values: {list: []},
    })
    expect(buildRawRequest({method: 'GET', path: '/x', rawFields: ['property_id[]', 'limit=1']}).query).toEqual({limit: '1'})
  })

  it('-F key=@FILE reads the value as a string, never typed; stdin (@-) can be read only once', async () => {
    const files: Record<string, string> = {'n.txt': '123', '-': 'from stdin'}
    const read = async (spec: string) => files[spec] as string
    const resolved = await resolveFieldFiles({fields: ['limit=5', 'text=@n.txt', 'subject=@-'], rawFields: ['channel=email']}, {read})
    expect(resolved).toEqual({fields: ['limit=5'], rawFields: ['channel=email', 'text=123', 'subject=from stdin']})
    const request = buildRawRequest({method: 'POST', path: '/x', ...resolved})
    expect(request.body).toEqual({limit: 5, channel: 'email', text: '123', subject: 'from stdin'})
    await expect(resolveFieldFiles({fields: ['a=@-', 'b=@-']}, {read})).rejects.toThrow(UsageError)
    await expect(resolveFieldFiles({fields: ['a=@-']}, {read, stdinTaken: true})).rejects.toThrow(/already read/)
  })

  it('--input gives the body and fields then go to the query', () => {
    const request = buildRawRequest({method: 'POST', path: '/restriction-batches', input: '{"entries":[]}', fields: ['x=1']})
    expect(request.body).toEqual({entries: []})
    expect(request.query).toEqual({x: '1'})
  })

  it('headers are Name: value; the Idempotency-Key is kept for POSTs only', () => {
    expect(buildRawRequest({method: 'POST', path: '/x', headers: ['X-Trace: abc'], idempotencyKey: 'k'})).toMatchObject({
      headers: {'x-trace': 'abc'},
      idempotencyKey: 'k',
    })
    expect(() => buildRawRequest({method: 'GET', path: '/x', idempotencyKey: 'k'})).toThrow(UsageError)
    expect(() => buildRawRequest({method: 'GET', path: '/x', headers: ['nocolon']})).toThrow(UsageError)
    // A header without its colon never echoes what follows the name, which may be a token.
    expect(() => buildRawRequest({method: 'GET', path: '/x', headers: ['Authorization Bearer pms_at_secret']})).toThrow(
      '-H "Authorization ..." is not "Name: value"',
    )
  })

  it('a file that cannot be read names the file, the flag and what to do', async () => {
    const error = await readInput('/nonexistent/batch.json').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageError)
    expect((error as UsageError).message).toBe('Cannot read /nonexistent/batch.json (--input): no such file')
    expect((error as UsageError).suggestion).toMatch(/check the path/)
    await expect(readInput('/nonexistent/t.txt', {flag: '-F'})).rejects.toThrow('Cannot read /nonexistent/t.txt (-F): no such file')
  })

  it('refuses bad fields, bad JSON input and unknown methods before sending', () => {
    expect(() => buildRawRequest({method: 'GET', path: '/x', fields: ['novalue']})).toThrow(UsageError)
    expect(() => buildRawRequest({method: 'POST', path: '/x', input: '{oops'})).toThrow(/not valid JSON/)
    expect(() => buildRawRequest({method: 'FETCH', path: '/x'})).toThrow(UsageError)
  })
})

describe('pms api output', () => {
  const pages: Record<string, RawResponse> = {
    '': {status: 200, headers: {'content-type': 'application/json'}, body: {data: [1, 2], next_cursor: 'c2'}},
    c2: {status: 200, headers: {'content-type': 'application/json'}, body: {data: [3], next_cursor: null}},
  }
  const client = {
    requests: [] as RawRequest[],
    async request(req: RawRequest) {
      this.requests.push(req)
      return pages[(req.query?.cursor as string | undefined) ?? ''] as RawResponse
    },
  }

  it("--paginate follows next_cursor and prints every page's data as one JSON array", async () => {
    let out = ''
    await runRaw(client, {method: 'GET', path: '/properties', query: {limit: '2'}}, {paginate: true, out: (t) => (out += t)})
    expect(JSON.parse(out)).toEqual([1, 2, 3])
    expect(client.requests.map((r) => r.query)).toEqual([{limit: '2'}, {limit: '2', cursor: 'c2'}])
  })

  it("--paginate tells on stderr the last page's next_updated_since, which the printed array cannot carry", async () => {
    const sync: Record<string, RawResponse> = {
      '': {status: 200, headers: {}, body: {data: [{id: 'b1'}], next_cursor: 'c2', next_updated_since: '2026-11-22T09:00:00Z'}},
      c2: {status: 200, headers: {}, body: {data: [{id: 'b2'}], next_cursor: null, next_updated_since: '2026-11-22T10:00:00Z'}},
    }
    const pager = {request: async (req: RawRequest) => sync[(req.query?.cursor as string | undefined) ?? ''] as RawResponse}
    let out = ''
    let talk = ''
    await runRaw(pager, {method: 'GET', path: '/bookings'}, {paginate: true, out: (t) => (out += t), talk: (t) => (talk += t)})
    expect(JSON.parse(out)).toEqual([{id: 'b1'}, {id: 'b2'}])
    expect(talk).toBe('next_updated_since: 2026-11-22T10:00:00Z (pass it as updated_since to read only what changed since)\n')
  })

  it('--paginate stops with an error when the service hands out a cursor twice, instead of looping', async () => {
    const looping = {request: async () => ({status: 200, headers: {}, body: {data: [1], next_cursor: 'same'}}) as RawResponse}
    const error = await runRaw(looping, {method: 'GET', path: '/properties'}, {paginate: true, out: () => undefined}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UnexpectedResponseError)
  })

  it('an error answer is printed like a success, with --include its status line and headers first, then thrown', async () => {
    const refused = new ApiError({
      status: 429,
      code: 'rate_limited',
      message: 'slow down',
      headers: {'retry-after': '5'},
      body: {error: {code: 'rate_limited', message: 'slow down'}},
    })
    const failing = {request: async (): Promise<RawResponse> => Promise.reject(refused)}
    let out = ''
    await expect(runRaw(failing, {method: 'GET', path: '/properties'}, {include: true, out: (t) => (out += t)})).rejects.toBe(refused)
    expect(out).toBe('HTTP/1.1 429 Too Many Requests\nretry-after: 5\n\n' + JSON.stringify(refused.body, null, 2) + '\n')
    let quiet = ''
    await expect(runRaw(failing, {method: 'GET', path: '/properties'}, {include: true, printErrorAnswer: false, out: (t) => (quiet += t)})).rejects.toBe(refused)
    expect(quiet).toBe('')
  })

  it('on a terminal JSON is coloured (keys, strings, literals) and reads the same once the colours are stripped', () => {
    const body = {id: 'a "quoted" \\ id', count: -1.5e3, ok: true, none: null, list: ['x', 2]}
    const coloured = formatBody(body, true)
    // eslint-disable-next-line no-control-regex
    expect(coloured.replace(/\u001B\[\d+m/g, '')).toBe(formatBody(body))
    expect(coloured).toContain('\u001B[34m"id"\u001B[39m:')
    expect(coloured).toContain('\u001B[32m"x"\u001B[39m')
    expect(coloured).toContain('\u001B[33mtrue\u001B[39m')
    expect(coloured).toContain('\u001B[33m-1500\u001B[39m')
    expect(formatBody(body)).not.toContain('\u001B')
  })

  it('--include prints the status line and headers before the body', async () => {
    let out = ''
    await runRaw({request: async () => pages[''] as RawResponse}, {method: 'GET', path: '/properties'}, {include: true, out: (t) => (out += t)})
    expect(out.startsWith('HTTP/1.1 200 OK\ncontent-type: application/json\n\n{')).toBe(true)
    expect(formatHead({status: 404, headers: {}})).toBe('HTTP/1.1 404 Not Found\n\n')
  })
})
