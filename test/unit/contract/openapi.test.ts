import {Validator} from '@seriousme/openapi-schema-validator'
import {describe, expect, it} from 'vitest'
import {PERMISSIONS, buildOpenApiDocument} from '../../../src/contract/index.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any

const doc: Doc = buildOpenApiDocument()

/** Every endpoint of the contract, relative to {base_url}, with its methods. */
const CONTRACT_ENDPOINTS: Record<string, string[]> = {
  '/properties': ['get'],
  '/properties/{id}': ['get'],
  '/properties/{id}/guide': ['get'],
  '/restrictions': ['get'],
  '/restriction-batches': ['post'],
  '/restriction-batches/{id}': ['get'],
  '/bookings': ['get'],
  '/bookings/{booking_id}/lock-codes': ['get'],
  '/message-threads': ['get'],
  '/bookings/{booking_id}/messages': ['get', 'post'],
  '/bookings/{booking_id}/messages/{message_id}/attachments/{index}': ['get'],
  '/bookings/{booking_id}/message-thread/close': ['post'],
  '/bookings/{booking_id}/message-thread/reopen': ['post'],
  '/openapi.json': ['get'],
}
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

function resolve(ref: string): Doc {
  return ref
    .slice(2)
    .split('/')
    .reduce((node: Doc, key) => node?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], doc)
}

function allRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item) => allRefs(item, out))
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value)
      else allRefs(value, out)
    }
  }
  return out
}

const methodsOf = (path: string) => Object.keys(doc.paths[path] ?? {}).filter((key) => HTTP_METHODS.includes(key))
const parameters = (op: Doc): Doc[] => (op.parameters ?? []).map((p: Doc) => (p.$ref ? resolve(p.$ref) : p))

describe('the OpenAPI 3.1 document of v1', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(doc))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  it('every $ref points at something that exists', () => {
    const refs = allRefs(doc)
    expect(refs.length).toBeGreaterThan(50)
    expect(refs.filter((ref) => resolve(ref) === undefined)).toEqual([])
  })

  it('is deterministic and JSON-serialisable', () => {
    const first = JSON.stringify(buildOpenApiDocument())
    expect(JSON.stringify(buildOpenApiDocument())).toBe(first)
    expect(JSON.parse(first)).toEqual(doc)
  })

  it('a caller editing its copy does not change the next document', () => {
    const copy: Doc = buildOpenApiDocument()
    copy.components.parameters.Cursor.name = 'changed'
    expect((buildOpenApiDocument() as Doc).components.parameters.Cursor.name).toBe('cursor')
  })

  it('serves under {app_url}/api/v1', () => {
    expect(doc.servers).toEqual([expect.objectContaining({url: '{app_url}/api/v1'})])
  })

  it('has every endpoint of the contract with its methods, and no other under the base URL', () => {
    for (const [path, methods] of Object.entries(CONTRACT_ENDPOINTS)) {
      expect(methodsOf(path), path).toEqual(methods)
    }
    const basePaths = Object.keys(doc.paths).filter((path) => !doc.paths[path].servers)
    expect(basePaths.sort()).toEqual(Object.keys(CONTRACT_ENDPOINTS).sort())
  })

  it('documents the OAuth endpoints outside the base URL through their own servers', () => {
    expect(methodsOf('/oauth/authorize')).toEqual(['get'])
    expect(doc.paths['/oauth/authorize'].servers[0].url).toBe('{app_url}')
    for (const path of ['/oauth/token', '/oauth/revoke']) {
      expect(methodsOf(path)).toEqual(['post'])
      expect(doc.paths[path].servers[0].url).toBe('{app_url}/api')
      const op = doc.paths[path].post
      expect(Object.keys(op.requestBody.content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded'])
      expect(op.responses['400'].content['application/json'].schema.$ref).toBe('#/components/schemas/OAuthError')
      expect(op.responses['401'].content['application/json'].schema.$ref).toBe('#/components/schemas/OAuthError')
    }
    expect(doc.paths['/oauth/token'].post.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/TokenResponse')
  })

  it('has the OAuth 2.0 authorization code scheme with the 10 Permissions as scopes and relative URLs', () => {
    const flow = doc.components.securitySchemes.oauth2.flows.authorizationCode
    expect(flow.authorizationUrl).toBe('/oauth/authorize')
    expect(flow.tokenUrl).toBe('/api/oauth/token')
    expect(Object.keys(flow.scopes).sort()).toEqual([...PERMISSIONS].sort())
    expect(Object.keys(flow.scopes)).toHaveLength(10)
  })

  it('every base URL operation needs the bearer token with the Permission of the contract as scope; the document itself needs none', () => {
    const expected: Record<string, string[]> = {
      'get /properties': ['properties.read'],
      'get /properties/{id}': ['properties.read'],
      'get /properties/{id}/guide': ['property_guide.read'],
      'get /restrictions': ['restrictions.read'],
      'post /restriction-batches': ['restrictions.write'],
      'get /restriction-batches/{id}': ['restrictions.write'],
      'get /bookings': ['bookings.read'],
      'get /bookings/{booking_id}/lock-codes': ['lock_codes.read'],
      'get /message-threads': ['messages.read'],
      'get /bookings/{booking_id}/messages': ['messages.read'],
      'post /bookings/{booking_id}/messages': ['messages.write'],
      'get /bookings/{booking_id}/messages/{message_id}/attachments/{index}': ['messages.read'],
      'post /bookings/{booking_id}/message-thread/close': ['messages.write'],
      'post /bookings/{booking_id}/message-thread/reopen': ['messages.write'],
    }
    for (const [key, scopes] of Object.entries(expected)) {
      const [method, path] = key.split(' ') as [string, string]
      expect(doc.paths[path][method].security, key).toEqual([{oauth2: scopes}])
    }
    // the document needs no Permission: readable with or without a token
    expect(doc.paths['/openapi.json'].get.security).toEqual([{}, {oauth2: []}])
  })

  it('every base URL operation answers the common errors with the ApiError shape; 429 carries Retry-After', () => {
    for (const path of Object.keys(CONTRACT_ENDPOINTS)) {
      for (const method of methodsOf(path)) {
        const responses = doc.paths[path][method].responses
        for (const status of ['401', '402', '403', '404', '429', '500']) {
          const response = responses[status].$ref ? resolve(responses[status].$ref) : responses[status]
          expect(response?.content?.['application/json']?.schema, `${method} ${path} ${status}`).toEqual({$ref: '#/components/schemas/ApiError'})
        }
        expect(resolve(responses['429'].$ref).headers['Retry-After'].schema.type).toBe('integer')
      }
    }
    expect(doc.components.responses.MethodNotAllowed.headers.Allow).toBeDefined()
  })

  it('endpoints with inputs answer 422; idempotent writes answer 409', () => {
    for (const [method, path] of [
      ['get', '/restrictions'],
      ['post', '/restriction-batches'],
      ['get', '/bookings'],
      ['get', '/message-threads'],
      ['post', '/bookings/{booking_id}/messages'],
    ] as const) {
      expect(doc.paths[path][method].responses['422'], `${method} ${path}`).toEqual({$ref: '#/components/responses/Unprocessable'})
    }
    expect(doc.paths['/restriction-batches'].post.responses['409']).toBeDefined()
    expect(doc.paths['/bookings/{booking_id}/messages'].post.responses['409']).toBeDefined()
  })

  it('POST /restriction-batches: Idempotency-Key header, the request body, 200 preview and 202 accepted', () => {
    const op = doc.paths['/restriction-batches'].post
    const key = parameters(op).find((p) => p.name === 'Idempotency-Key')
    expect(key).toMatchObject({in: 'header', schema: {maxLength: 255}})
    expect(op.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/RestrictionBatchRequest')
    expect(op.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/RestrictionBatchPreview')
    expect(op.responses['202'].content['application/json'].schema.$ref).toBe('#/components/schemas/RestrictionBatchAccepted')
    const request = doc.components.schemas.RestrictionBatchRequest
    expect(request.properties.entries).toMatchObject({minItems: 1, maxItems: 20000})
    const values = doc.components.schemas.RestrictionValues
    expect(values.properties.rate).toMatchObject({minimum: 0.01, maximum: 99999999.99})
    expect(values.properties.min_stay).toMatchObject({type: 'integer', minimum: 1, maximum: 365})
    expect(values.minProperties).toBe(1)
  })

  it('POST messages takes JSON or multipart with up to 5 photos and answers 201 Message or 502 delivery_failed', () => {
    const op = doc.paths['/bookings/{booking_id}/messages'].post
    expect(op.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/SendMessageRequest')
    expect(op.requestBody.content['multipart/form-data'].schema.properties.photos.maxItems).toBe(5)
    expect(op.responses['201'].content['application/json'].schema.$ref).toBe('#/components/schemas/Message')
    expect(op.responses['502']).toBeDefined()
    expect(parameters(op).map((p) => p.name)).toEqual(['booking_id', 'Idempotency-Key'])
  })

  it('list endpoints take cursor and limit with the contract bounds; property_id[] is a repeated query', () => {
    const limit = (path: string) => parameters(doc.paths[path].get).find((p) => p.name === 'limit').schema
    expect(limit('/properties')).toEqual({type: 'integer', minimum: 1, maximum: 100, default: 100})
    expect(limit('/message-threads')).toEqual({type: 'integer', minimum: 1, maximum: 500, default: 100})
    expect(limit('/bookings/{booking_id}/messages')).toEqual({type: 'integer', minimum: 1, maximum: 500, default: 100})
    expect(limit('/bookings')).toEqual({type: 'integer', minimum: 1, maximum: 500, default: 100})
    for (const path of ['/restrictions', '/bookings', '/message-threads']) {
      const ids = parameters(doc.paths[path].get).find((p) => p.name === 'property_id[]')
      expect(ids, path).toMatchObject({in: 'query', style: 'form', explode: true, schema: {type: 'array', maxItems: 100}})
    }
    for (const path of ['/bookings', '/message-threads']) {
      const names = parameters(doc.paths[path].get).map((p) => p.name)
      expect(names).toEqual(expect.arrayContaining(['updated_since', 'cursor', 'limit']))
    }
    const restrictions = parameters(doc.paths['/restrictions'].get)
    expect(restrictions.filter((p) => p.required).map((p) => p.name).sort()).toEqual(['from', 'property_id[]', 'to'])
  })

  it('answer schemas are open: unknown fields allowed and enum-like fields accept any string', () => {
    const message = doc.components.schemas.Message
    expect(message.additionalProperties).toEqual({})
    expect(message.properties.channel.anyOf).toEqual([
      {type: 'string', enum: ['platform', 'email', 'sms']},
      {type: 'string'},
    ])
    expect(doc.components.schemas.ApiErrorObject.properties.code.anyOf[1]).toEqual({type: 'string'})
  })

  it('components carry neither $schema nor $id', () => {
    for (const [id, schema] of Object.entries(doc.components.schemas as Record<string, Doc>)) {
      expect(schema.$schema, id).toBeUndefined()
      expect(schema.$id, id).toBeUndefined()
    }
  })

  it('describes App Events as a webhook with the WebhookPayload body', () => {
    expect(doc.webhooks.appEvent.post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/WebhookPayload')
  })
})
