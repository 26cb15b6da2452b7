import {styleText} from 'node:util'
import {IDEMPOTENCY_KEY_MAX_LENGTH} from '../contract/limits.js'
import {UsageError} from '../errors.js'
import {ApiError} from '../client/errors.js'
import {walkPages} from '../client/pagination.js'
import type {PmsClient, RawRequest, RawResponse} from '../client/index.js'

/** What `pms api` was asked, before anything is sent. */
export interface RawCommandInput {
  method: string
  path: string
  /**
   * `-F key=value`, typed as `gh api` does: true, false, null and numbers become JSON values in a
   * body; `@FILE` (`@-` for stdin) must be replaced by the file's text first (resolveFieldFiles).
   */
  fields?: string[]
  /** `-f key=value`, kept as strings whatever they look like (`gh api`'s --raw-field). */
  rawFields?: string[]
  /** `Name: value` */
  headers?: string[]
  /** JSON text of the body (from --input). Fields then go to the query, as `gh api` does. */
  input?: string
  idempotencyKey?: string
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

/** Turns the flags of `pms api` into one request. Pure: everything is checked before sending. */
export function buildRawRequest(input: RawCommandInput): RawRequest {
  const method = input.method.toUpperCase()
  if (!METHODS.has(method)) throw new UsageError(`Unknown HTTP method ${input.method}`, {
      suggestion: `the API's endpoints take GET and POST; pms api also sends ${[...METHODS].filter((m) => m !== 'GET' && m !== 'POST').join(', ')}`,
    })
  if (!input.path) throw new UsageError('The path is missing', {suggestion: 'pms api GET /properties'})

  const fields = [...(input.fields ?? []).map((spec) => parseField(spec, true)), ...(input.rawFields ?? []).map((spec) => parseField(spec, false))]
  const headers: Record<string, string> = {}
  for (const spec of input.headers ?? []) {
    const colon = spec.indexOf(':')
    const name = colon > 0 ? spec.slice(0, colon).trim() : ''
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      // Only the first word is echoed: the rest may be a credential (-H 'Authorization Bearer ...').
      const first = spec.trim().split(/\s+/)[0] ?? ''
      throw new UsageError(`-H "${first}${first.length < spec.trim().length ? ' ...' : ''}" is not "Name: value"`, {suggestion: "-H 'Accept: application/json'"})
    }
    headers[name.toLowerCase()] = spec.slice(colon + 1).trim()
  }

  if (input.idempotencyKey !== undefined) {
    if (method === 'GET' || method === 'HEAD') {
      throw new UsageError(`--idempotency-key is for POST requests, not ${method}`, {suggestion: `leave it out: a ${method} is always safe to retry`})
    }
    if (input.idempotencyKey.length === 0 || input.idempotencyKey.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
      throw new UsageError(`--idempotency-key has ${input.idempotencyKey.length} characters; a key has 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH}`, {
        suggestion: 'use a shorter key, e.g. a uuid or a hash of what the request writes',
      })
    }
  }

  const request: RawRequest = {method, path: input.path, headers, idempotencyKey: input.idempotencyKey}
  const fieldsInQuery = method === 'GET' || method === 'HEAD' || input.input !== undefined
  if (input.input !== undefined) {
    try {
      request.body = JSON.parse(input.input)
    } catch (error) {
      throw new UsageError(`The --input body is not valid JSON: ${(error as Error).message}`, {
        suggestion: 'fix the JSON document given to --input (pms api sends JSON bodies only)',
      })
    }
  }
  if (fieldsInQuery) {
    if (fields.length > 0) request.query = toQuery(fields)
  } else if (fields.length > 0) request.body = toBody(fields)
  return request
}

interface Field {
  /** `a[b][]` gives ['a', 'b', ''] where '' appends. */
  path: string[]
  /** The key as written, for query strings (`property_id[]`). */
  key: string
  value: unknown
  text: string
  /** `name[]` without a value: an empty list, as in `gh api`. */
  emptyList?: boolean
}

export function parseField(spec: string, typed: boolean): Field {
  const eq = spec.indexOf('=')
  if (eq < 0 && spec.length > 2 && spec.endsWith('[]')) {
    const field = parseField(`${spec.slice(0, -2)}=`, false)
    return {...field, key: spec, value: [], emptyList: true}
  }
  if (eq <= 0) throw new UsageError(`Field "${spec}" is not key=value`, {suggestion: '-f limit=10, -f property_id[]=ID or -F values[rate]=120.5'})
  const key = spec.slice(0, eq)
  const text = spec.slice(eq + 1)
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key)
  if (!match) throw new UsageError(`Field name "${key}" is not name, name[] or name[sub]`, {suggestion: '-f property_id[]=ID or -F entries[][values][rate]=120.5'})
  const path = [match[1] as string, ...[...(match[2] ?? '').matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] as string)]
  return {path, key, value: typed ? typedValue(text) : text, text}
}

/**
 * `-F key=@FILE` takes the value from a file, `@-` from stdin, as `gh api` does; the text is used
 * as is, a string, so it joins the raw fields. Runs before buildRawRequest so that building stays pure.
 */
export async function resolveFieldFiles(
  input: Pick<RawCommandInput, 'fields' | 'rawFields'>,
  options: {read?: (spec: string) => Promise<string>; stdinTaken?: boolean} = {},
): Promise<Pick<RawCommandInput, 'fields' | 'rawFields'>> {
  const read = options.read ?? ((spec: string) => readInput(spec, {flag: '-F'}))
  const fields: string[] = []
  const rawFields = [...(input.rawFields ?? [])]
  let stdinUsed = options.stdinTaken ?? false
  for (const spec of input.fields ?? []) {
    const eq = spec.indexOf('=')
    if (eq <= 0 || spec[eq + 1] !== '@') {
      fields.push(spec)
      continue
    }
    const file = spec.slice(eq + 2)
    if (file === '-') {
      if (stdinUsed) {
        throw new UsageError(`-F ${spec.slice(0, eq)}=@- cannot read stdin: it is already read (by --input - or another @-)`, {
          suggestion: 'read the other values from files: -F key=@FILE',
        })
      }
      stdinUsed = true
    }
    rawFields.push(`${spec.slice(0, eq)}=${await read(file)}`)
  }
  return {fields, rawFields}
}

function typedValue(text: string): unknown {
  if (text === 'true') return true
  if (text === 'false') return false
  if (text === 'null') return null
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text) && Number.isFinite(Number(text))) return Number(text)
  return text
}

function toQuery(fields: Field[]): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {}
  for (const field of fields) {
    // An empty list has no form in a query string.
    if (field.emptyList) continue
    const existing = query[field.key]
    if (field.key.endsWith('[]')) query[field.key] = [...(Array.isArray(existing) ? existing : []), field.text]
    else query[field.key] = field.text
  }
  return query
}

function toBody(fields: Field[]): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const field of fields) {
    let node: Record<string, unknown> | unknown[] = body
    field.path.forEach((part, i) => {
      const last = i === field.path.length - 1
      const nextIsAppend = !last && field.path[i + 1] === ''
      if (Array.isArray(node)) {
        if (last) node.push(field.value)
        else {
          // As Rack and `gh api` read `entries[][from]`: fill the last object until a key comes again.
          const tail = node.at(-1)
          const reuse = !nextIsAppend && isObject(tail) && !hasPath(tail, field.path.slice(i + 1))
          const child = reuse ? tail : nextIsAppend ? [] : {}
          if (!reuse) node.push(child)
          node = child
        }
        return
      }
      if (part === '') throw new UsageError(`Field name "${field.key}" has [] where a name is needed`, {suggestion: 'start the field with a name: entries[][from]=...'})
      if (last) {
        // `name[]` alone makes the list exist without emptying one that values already filled.
        if (!field.emptyList || !Array.isArray(node[part])) node[part] = field.value
        return
      }
      const current = node[part]
      const wanted = nextIsAppend ? Array.isArray(current) : typeof current === 'object' && current !== null && !Array.isArray(current)
      if (!wanted) node[part] = nextIsAppend ? [] : {}
      node = node[part] as Record<string, unknown> | unknown[]
    })
  }
  return body
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Whether `path` (names only; an append `[]` never collides) already leads to a value. */
function hasPath(node: Record<string, unknown>, path: string[]): boolean {
  const [head, ...rest] = path
  if (head === undefined || head === '' || !Object.hasOwn(node, head)) return false
  if (rest.length === 0) return true
  const child = node[head]
  return isObject(child) && hasPath(child, rest)
}

/**
 * Every page of a cursor-paged GET: follows `next_cursor` until null. Yields each answer so that
 * the caller can print headers as well as data.
 */
export function rawPages(client: Pick<PmsClient, 'request'>, request: RawRequest): AsyncGenerator<RawResponse> {
  return walkPages(
    (cursor) => client.request(cursor === undefined ? request : {...request, query: {...request.query, cursor}}),
    (answer) => (answer.body as {next_cursor?: unknown} | undefined)?.next_cursor,
  )
}

/** `--include`: the status line and headers, as curl and `gh api` print them. */
export function formatHead(answer: Pick<RawResponse, 'status' | 'headers'>): string {
  // Not an import of node:http, which would load Node's own undici for nothing (see src/client/http.ts).
  const lines = [`HTTP/1.1 ${answer.status} ${process.getBuiltinModule('node:http').STATUS_CODES[answer.status] ?? ''}`.trimEnd()]
  for (const [name, value] of Object.entries(answer.headers)) lines.push(`${name}: ${value}`)
  return lines.join('\n') + '\n\n'
}

/** Pretty JSON for JSON bodies, coloured like `gh api` on a terminal; text as it came. */
export function formatBody(body: unknown, color = false): string {
  if (body === undefined) return ''
  if (typeof body === 'string') return body.endsWith('\n') ? body : body + '\n'
  const text = JSON.stringify(body, null, 2)
  return (color ? colorJson(text) : text) + '\n'
}

const JSON_TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|\b(?:true|false|null)\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g

/** Keys blue, strings green, numbers, booleans and null yellow: the palette of `gh api`. */
function colorJson(text: string): string {
  // The caller decided that colour is on; styleText would look at process.stdout again.
  const paint = (style: 'blue' | 'green' | 'yellow', token: string) => styleText(style, token, {validateStream: false})
  return text.replace(JSON_TOKEN, (token, string?: string, colon?: string) => {
    if (string !== undefined) return colon === undefined ? paint('green', string) : paint('blue', string) + colon
    return paint('yellow', token)
  })
}

export interface RunRawOptions {
  include?: boolean
  paginate?: boolean
  /** Colour JSON bodies (stdout is a terminal and NO_COLOR is unset). */
  color?: boolean
  /**
   * As `gh api`: an error answer's body (with --include, its status line and headers first) is
   * printed like a success before the error is thrown. Off with --json, whose error document
   * must be the only thing on stdout.
   */
  printErrorAnswer?: boolean
  out: (text: string) => void
  /** stderr: with --paginate, the `next_updated_since` of the last page, which the array cannot carry. */
  talk?: (text: string) => void
}

/** `pms api`: one request, or with --paginate every page's `data` printed as one JSON array. */
export async function runRaw(client: Pick<PmsClient, 'request'>, request: RawRequest, options: RunRawOptions): Promise<void> {
  try {
    await runRawAnswers(client, request, options)
  } catch (error) {
    if (options.printErrorAnswer !== false && error instanceof ApiError && error.body !== undefined) {
      if (options.include) options.out(formatHead({status: error.status, headers: error.headers ?? {}}))
      options.out(formatBody(error.body, options.color))
    }
    throw error
  }
}

async function runRawAnswers(client: Pick<PmsClient, 'request'>, request: RawRequest, options: RunRawOptions): Promise<void> {
  if (!options.paginate) {
    const answer = await client.request(request)
    if (options.include) options.out(formatHead(answer))
    options.out(formatBody(answer.body, options.color))
    return
  }
  if (request.method !== 'GET') throw new UsageError(`--paginate follows next_cursor of GET lists only, not ${request.method}`, {suggestion: 'leave out --paginate'})
  const items: unknown[] = []
  let single: unknown
  let nextUpdatedSince: unknown
  for await (const answer of rawPages(client, request)) {
    if (options.include) options.out(formatHead(answer))
    const page = answer.body as {data?: unknown; next_updated_since?: unknown} | undefined
    if (Array.isArray(page?.data)) items.push(...page.data)
    // An answer without a `data` list is not paged: print it as it came.
    else single = answer.body
    nextUpdatedSince = page?.next_updated_since
  }
  options.out(formatBody(single !== undefined && items.length === 0 ? single : items, options.color))
  if (typeof nextUpdatedSince === 'string') {
    options.talk?.(`next_updated_since: ${nextUpdatedSince} (pass it as updated_since to read only what changed since)\n`)
  }
}

/** The text of --input (or of a -F @FILE): a file, or `-` for stdin. */
export async function readInput(spec: string, options: {flag?: string; stdin?: NodeJS.ReadableStream} = {}): Promise<string> {
  if (spec === '-') {
    const chunks: Buffer[] = []
    for await (const chunk of options.stdin ?? process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer))
    return Buffer.concat(chunks).toString('utf8')
  }
  const {readFile} = await import('node:fs/promises')
  try {
    return await readFile(spec, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message
    throw new UsageError(`Cannot read ${spec} (${options.flag ?? '--input'}): ${why}`, {
      suggestion: options.flag === '-F' ? 'check the path after @, or write @- to read standard input' : 'check the path, or pass - to read standard input',
    })
  }
}
