import {z} from 'zod'
// The schema modules register their components in contractRegistry when they load.
import './properties.js'
import './guide.js'
import './restrictions.js'
import './batches.js'
import './bookings.js'
import './message-threads.js'
import './messages.js'
import './errors.js'
import './oauth.js'
import './webhooks.js'
import {PERMISSIONS, type Permission} from './error-codes.js'
import {
  API_PREFIX,
  BOOKINGS_PAGE_SIZE,
  EMAIL_SUBJECT_MAX_LENGTH,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  MAX_DAYS_PER_BOOKINGS_CALL,
  MAX_DAYS_PER_RESTRICTIONS_CALL,
  MAX_PHOTOS_PER_MESSAGE,
  MAX_PROPERTIES_PER_CALL,
  MESSAGE_TEXT_MAX_LENGTH,
  MESSAGES_PAGE_SIZE,
  PHOTO_CONTENT_TYPES,
  PHOTO_MAX_BYTES,
  PROPERTIES_PAGE_SIZE,
  RATE_LIMITS,
  RATE_LIMIT_WINDOW_SECONDS,
  THREADS_PAGE_SIZE,
} from './limits.js'
import {contractRegistry} from './registry.js'

type Json = Record<string, unknown>

const SCHEMA_REF_PREFIX = '#/components/schemas/'
const ref = (id: string): Json => ({$ref: SCHEMA_REF_PREFIX + id})
const jsonContent = (schema: Json): Json => ({'application/json': {schema}})

export const PERMISSION_DESCRIPTIONS: Record<Permission, string> = {
  'properties.read': 'read the Properties',
  'restrictions.read': 'read Restrictions',
  'restrictions.write': 'write Restrictions',
  'bookings.read': 'read bookings',
  'guests.read': 'read guest contact details of bookings',
  'prices.read': 'read amounts of bookings',
  'messages.read': 'read Message Threads and messages',
  'messages.write': 'send messages, close and reopen conversations (SMS billed to the host)',
  'property_guide.read': 'read the Property Guide, Wi-Fi included',
  'lock_codes.read': 'read booking access codes (lock codes and static codes)',
}

/** Error answers shared by the endpoints, keyed by the response component name. */
const ERROR_RESPONSES: Record<string, {status: string; description: string; headers?: Json}> = {
  Unauthorized: {
    status: '401',
    description:
      '`unauthorized` (token missing, unknown, expired or revoked: refresh, then ask the owner to connect again) or `connection_revoked` (stop calling, drop the tokens).',
  },
  SubscriptionBlocked: {status: '402', description: '`subscription_blocked`: calls work again once the subscription is restored.'},
  Forbidden: {status: '403', description: '`forbidden_permission` (the App lacks the Permission) or `app_suspended`.'},
  NotFound: {status: '404', description: '`not_found`: missing or outside the Connection Scope (both look the same).'},
  MethodNotAllowed: {
    status: '405',
    description: '`method_not_allowed`: the path exists but not for this method.',
    headers: {Allow: {description: 'The accepted methods.', schema: {type: 'string'}}},
  },
  IdempotencyKeyInUse: {status: '409', description: '`idempotency_key_in_use`: a request with this key is still being processed; retry in a few seconds.'},
  Unprocessable: {
    status: '422',
    description:
      '`validation_failed` (`details.issues` with `path`, `message` and `maximum` when too big), `property_out_of_scope` (`details.property_ids`) or `idempotency_key_reused`.',
  },
  RateLimited: {
    status: '429',
    description: `\`rate_limited\`: wait \`Retry-After\` seconds (also in \`details.retry_after_seconds\`). Per App Connection and ${RATE_LIMIT_WINDOW_SECONDS} s: ${RATE_LIMITS.read} reads, ${RATE_LIMITS.write} writes, ${RATE_LIMITS.send} messages sent.`,
    headers: {'Retry-After': {description: 'Seconds to wait.', required: true, schema: {type: 'integer', minimum: 0}}},
  },
  InternalError: {status: '500', description: '`internal_error`: retry later with back-off.'},
}

/** The platform's own refusal of a large body: not the JSON error shape. */
const PAYLOAD_TOO_LARGE: Json = {
  description: 'Refused by the hosting platform: the body is above about 4.5 MB. Not the JSON error shape.',
}

interface Operation {
  operationId: string
  summary: string
  tag: string
  permission: Permission | null
  parameters?: Json[]
  requestBody?: Json
  responses: Record<string, Json>
  /** Extra error responses beyond 401, 402, 403, 404, 429 and 500. */
  errors?: string[]
  description?: string
}

const param = (name: string): Json => ({$ref: `#/components/parameters/${name}`})
const errorResponse = (name: string): Json => ({$ref: `#/components/responses/${name}`})

function operation(op: Operation): Json {
  const responses: Record<string, Json> = {...op.responses}
  for (const name of ['Unauthorized', 'SubscriptionBlocked', 'Forbidden', 'NotFound', ...(op.errors ?? []), 'RateLimited', 'InternalError']) {
    const status = ERROR_RESPONSES[name]?.status
    if (status) responses[status] = errorResponse(name)
  }
  const out: Json = {
    operationId: op.operationId,
    summary: op.summary,
    tags: [op.tag],
    // Without a Permission (the document itself) the token is accepted but not needed.
    security: op.permission ? [{oauth2: [op.permission]}] : [{}, {oauth2: []}],
  }
  if (op.description) out.description = op.description
  if (op.permission) out['x-permission'] = op.permission
  if (op.parameters) out.parameters = op.parameters
  if (op.requestBody) out.requestBody = op.requestBody
  out.responses = sortedByKey(responses)
  return out
}

function sortedByKey<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)))
}

const ok = (description: string, schemaId: string): Json => ({description, content: jsonContent(ref(schemaId))})

function pageLimit(name: string, bounds: {min: number; max: number; default: number}): Json {
  return {
    name: 'limit',
    in: 'query',
    description: `Page size of ${name}.`,
    required: false,
    schema: {type: 'integer', minimum: bounds.min, maximum: bounds.max, default: bounds.default},
  }
}

function propertyIds(required: boolean, description: string): Json {
  return {
    name: 'property_id[]',
    in: 'query',
    required,
    description: `${description} Repeat the parameter for each Property; more than ${MAX_PROPERTIES_PER_CALL} answers 422 \`validation_failed\` with \`maximum: ${MAX_PROPERTIES_PER_CALL}\`, a Property outside the Connection Scope 422 \`property_out_of_scope\`.`,
    style: 'form',
    explode: true,
    schema: {type: 'array', items: {type: 'string', format: 'uuid'}, minItems: required ? 1 : 0, maxItems: MAX_PROPERTIES_PER_CALL},
  }
}

const dateParam = (name: string, required: boolean, description: string): Json => ({
  name,
  in: 'query',
  required,
  description,
  schema: {type: 'string', format: 'date'},
})

const pathUuid = (name: string, description: string): Json => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: {type: 'string', format: 'uuid'},
})

const PARAMETERS: Record<string, Json> = {
  Cursor: {name: 'cursor', in: 'query', required: false, description: 'The `next_cursor` of the previous page.', schema: {type: 'string'}},
  UpdatedSince: {
    name: 'updated_since',
    in: 'query',
    required: false,
    description: 'Only records changed at or after this instant; pass `next_updated_since` of the previous listing.',
    schema: {type: 'string', format: 'date-time'},
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Replaying the same key on the same App Connection within 24 hours answers what the first request did; the same key with a different body answers 422 `idempotency_key_reused`.',
    schema: {type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH},
  },
  PropertyId: pathUuid('id', 'The Property.'),
  BatchId: pathUuid('id', 'The Restriction Batch.'),
  BookingId: pathUuid('booking_id', 'The booking.'),
  MessageId: pathUuid('message_id', 'The message.'),
  AttachmentIndex: {
    name: 'index',
    in: 'path',
    required: true,
    description: 'The attachment `index`.',
    schema: {type: 'string'},
  },
}

const sendMessageMultipart: Json = {
  type: 'object',
  description: `The fields of SendMessageRequest plus up to ${MAX_PHOTOS_PER_MESSAGE} \`photos\` parts (platform only; ${PHOTO_MAX_BYTES / 1024 / 1024} MB each). The text and each photo reach the guest as separate messages.`,
  required: ['channel', 'text'],
  properties: {
    channel: {type: 'string', enum: ['platform', 'email', 'sms']},
    text: {type: 'string', minLength: 1, maxLength: MESSAGE_TEXT_MAX_LENGTH},
    subject: {type: 'string', maxLength: EMAIL_SUBJECT_MAX_LENGTH},
    photos: {
      type: 'array',
      maxItems: MAX_PHOTOS_PER_MESSAGE,
      items: {type: 'string', contentMediaType: 'application/octet-stream'},
    },
  },
}

function paths(): Record<string, Json> {
  return {
    '/properties': {
      get: operation({
        operationId: 'listProperties',
        summary: 'List the Properties of the Connection Scope, ordered by id',
        tag: 'Properties',
        permission: 'properties.read',
        parameters: [param('Cursor'), pageLimit('Properties', PROPERTIES_PAGE_SIZE)],
        responses: {'200': ok('A page of Properties.', 'PropertiesPage')},
        errors: ['Unprocessable'],
      }),
    },
    '/properties/{id}': {
      get: operation({
        operationId: 'getProperty',
        summary: 'Read one Property',
        tag: 'Properties',
        permission: 'properties.read',
        parameters: [param('PropertyId')],
        responses: {'200': ok('The Property.', 'Property')},
        errors: ['Unprocessable'],
      }),
    },
    '/properties/{id}/guide': {
      get: operation({
        operationId: 'getPropertyGuide',
        summary: 'Read the Property Guide',
        tag: 'Properties',
        permission: 'property_guide.read',
        parameters: [param('PropertyId')],
        responses: {'200': ok('The Property Guide.', 'PropertyGuide')},
        errors: ['Unprocessable'],
      }),
    },
    '/restrictions': {
      get: operation({
        operationId: 'getRestrictions',
        summary: 'Read rates and restrictions per Property and night',
        tag: 'Restrictions',
        permission: 'restrictions.read',
        description: `At most ${MAX_PROPERTIES_PER_CALL} Properties and ${MAX_DAYS_PER_RESTRICTIONS_CALL} nights per call (\`to\` inclusive). Not paged.`,
        parameters: [
          propertyIds(true, 'The Properties to read.'),
          dateParam('from', true, 'First night, inclusive.'),
          dateParam('to', true, `Last night, inclusive; at most ${MAX_DAYS_PER_RESTRICTIONS_CALL} nights from \`from\`.`),
        ],
        responses: {'200': ok('One record per Property and night.', 'RestrictionsAnswer')},
        errors: ['Unprocessable'],
      }),
    },
    '/restriction-batches': {
      post: operation({
        operationId: 'createRestrictionBatch',
        summary: 'Write Restrictions over many Properties and nights, or preview the write with dry_run',
        tag: 'Restrictions',
        permission: 'restrictions.write',
        description:
          'A malformed body, a date outside today to today + 730 days (in each Property time zone), more than the limits, or a Property outside the Connection Scope rejects the whole batch; nothing is stored. The Idempotency-Key is ignored with dry_run.',
        parameters: [param('IdempotencyKey')],
        requestBody: {required: true, content: jsonContent(ref('RestrictionBatchRequest'))},
        responses: {
          '200': ok('Preview of a dry run: nothing stored or sent.', 'RestrictionBatchPreview'),
          '202': ok('The batch is stored with status `queued`.', 'RestrictionBatchAccepted'),
          '413': PAYLOAD_TOO_LARGE,
        },
        errors: ['IdempotencyKeyInUse', 'Unprocessable'],
      }),
    },
    '/restriction-batches/{id}': {
      get: operation({
        operationId: 'getRestrictionBatch',
        summary: 'Read the status and outcome report of a batch',
        tag: 'Restrictions',
        permission: 'restrictions.write',
        description: 'A batch of another App Connection, or older than 30 days, answers 404 `not_found`.',
        parameters: [param('BatchId')],
        responses: {'200': ok('The outcome report.', 'BatchReport')},
        errors: ['Unprocessable'],
      }),
    },
    '/bookings': {
      get: operation({
        operationId: 'listBookings',
        summary: 'List bookings, ordered by updated_at then id',
        tag: 'Bookings',
        permission: 'bookings.read',
        description: `For incremental sync poll without \`from\`/\`to\` and pass \`next_updated_since\` of the last page as \`updated_since\`. A stay range spans at most ${MAX_DAYS_PER_BOOKINGS_CALL} days.`,
        parameters: [
          propertyIds(false, 'The Properties to list; omitted lists the whole Connection Scope.'),
          dateParam('from', false, 'Start of the stay range.'),
          dateParam('to', false, `End of the stay range; at most ${MAX_DAYS_PER_BOOKINGS_CALL} days from \`from\`.`),
          param('UpdatedSince'),
          param('Cursor'),
          pageLimit('bookings', BOOKINGS_PAGE_SIZE),
        ],
        responses: {'200': ok('A page of bookings.', 'BookingsPage')},
        errors: ['Unprocessable'],
      }),
    },
    '/bookings/{booking_id}/lock-codes': {
      get: operation({
        operationId: 'getBookingLockCodes',
        summary: 'Read the access codes of a booking',
        tag: 'Bookings',
        permission: 'lock_codes.read',
        description: 'A cancelled booking answers an empty list; a booking without stay dates answers 404 `not_found`.',
        parameters: [param('BookingId')],
        responses: {'200': ok('One entry per Lock with a code for the booking.', 'LockCodesAnswer')},
        errors: ['Unprocessable'],
      }),
    },
    '/message-threads': {
      get: operation({
        operationId: 'listMessageThreads',
        summary: 'List Message Threads, latest message first',
        tag: 'Messages',
        permission: 'messages.read',
        description: 'Threads may come twice while paging: upsert by booking_id.',
        parameters: [
          propertyIds(false, 'The Properties to list; omitted lists the whole Connection Scope.'),
          param('UpdatedSince'),
          param('Cursor'),
          pageLimit('Message Threads', THREADS_PAGE_SIZE),
        ],
        responses: {'200': ok('A page of Message Threads.', 'MessageThreadsPage')},
        errors: ['Unprocessable'],
      }),
    },
    '/bookings/{booking_id}/messages': {
      get: operation({
        operationId: 'listMessages',
        summary: 'List the conversation of a booking, oldest first',
        tag: 'Messages',
        permission: 'messages.read',
        parameters: [param('BookingId'), param('Cursor'), pageLimit('messages', MESSAGES_PAGE_SIZE)],
        responses: {'200': ok('A page of messages; empty for a booking without messages.', 'MessagesPage')},
        errors: ['Unprocessable'],
      }),
      post: operation({
        operationId: 'sendMessage',
        summary: 'Send a message to the guest',
        tag: 'Messages',
        permission: 'messages.write',
        description:
          'Sends right away and answers once sent. Refusals known before sending answer 422 and send nothing: `channel_unavailable`, `missing_guest_contact`, `sms_billing_unavailable`, `validation_failed`, `idempotency_key_reused`.',
        parameters: [param('BookingId'), param('IdempotencyKey')],
        requestBody: {
          required: true,
          content: {
            'application/json': {schema: ref('SendMessageRequest')},
            'multipart/form-data': {
              schema: sendMessageMultipart,
              encoding: {photos: {contentType: PHOTO_CONTENT_TYPES.join(', ')}},
            },
          },
        },
        responses: {
          '201': ok('The message sent (with photos: the text message).', 'Message'),
          '413': PAYLOAD_TOO_LARGE,
          '502': {
            description:
              '`delivery_failed`: `details.delivery_outcome` is `not_sent` (safe to send again) or `unknown` (read the conversation first).',
            content: jsonContent(ref('ApiError')),
          },
        },
        errors: ['IdempotencyKeyInUse', 'Unprocessable'],
      }),
    },
    '/bookings/{booking_id}/messages/{message_id}/attachments/{index}': {
      get: operation({
        operationId: 'downloadMessageAttachment',
        summary: 'Download a file of a message',
        tag: 'Messages',
        permission: 'messages.read',
        description:
          'Streamed without Content-Length; a connection that ends before the body is complete is a failed download (retry later).',
        parameters: [param('BookingId'), param('MessageId'), param('AttachmentIndex')],
        responses: {
          '200': {
            description: 'The file, with its actual Content-Type.',
            content: {'*/*': {schema: {type: 'string', contentMediaType: 'application/octet-stream'}}},
          },
          '502': {
            description: '`attachment_unavailable`: the Sales Channel cannot hand over the file now; retry with back-off.',
            content: jsonContent(ref('ApiError')),
          },
        },
        errors: ['Unprocessable'],
      }),
    },
    '/bookings/{booking_id}/message-thread/close': {
      post: operation({
        operationId: 'closeMessageThread',
        summary: 'Mark every message of the booking read',
        tag: 'Messages',
        permission: 'messages.write',
        parameters: [param('BookingId')],
        responses: {'200': ok('The thread state; a booking without messages answers is_closed true and unread_count 0.', 'MessageThreadState')},
        errors: ['Unprocessable'],
      }),
    },
    '/bookings/{booking_id}/message-thread/reopen': {
      post: operation({
        operationId: 'reopenMessageThread',
        summary: 'Mark every message of the booking unread',
        tag: 'Messages',
        permission: 'messages.write',
        parameters: [param('BookingId')],
        responses: {'200': ok('The thread state.', 'MessageThreadState')},
        errors: ['Unprocessable'],
      }),
    },
    '/openapi.json': {
      get: operation({
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI 3.1 document',
        tag: 'Meta',
        permission: null,
        responses: {'200': {description: 'The OpenAPI document of version 1.', content: jsonContent({type: 'object'})}},
      }),
    },
    ...oauthPaths(),
  }
}

const oauthErrorResponse = (description: string): Json => ({description, content: jsonContent(ref('OAuthError'))})

/**
 * The OAuth endpoints live outside `{base_url}`: each path carries its own `servers` override
 * (`{app_url}` for authorize, `{app_url}/api` for token and revoke) so that the path keys stay the
 * service's real paths below those roots.
 */
function oauthPaths(): Record<string, Json> {
  const appUrlServer = (suffix: string): Json[] => [{url: `{app_url}${suffix}`, variables: {app_url: APP_URL_VARIABLE}}]
  const clientAuthSecurity = [{clientBasic: []}, {}]
  const formOrJson = (schemaId: string): Json => ({
    required: true,
    content: {
      'application/x-www-form-urlencoded': {schema: ref(schemaId)},
      'application/json': {schema: ref(schemaId)},
    },
  })
  const query = (name: string, description: string, schema: Json = {type: 'string'}): Json => ({
    name,
    in: 'query',
    required: true,
    description,
    schema,
  })
  return {
    '/oauth/authorize': {
      servers: appUrlServer(''),
      get: {
        operationId: 'authorize',
        summary: 'Ask the account owner to connect the App (authorization code flow with PKCE S256)',
        tags: ['OAuth'],
        security: [],
        parameters: [
          query('response_type', '`code`.', {type: 'string', enum: ['code']}),
          query('client_id', 'The client identifier of the App.'),
          query('redirect_uri', 'Equal to a registered redirect URI.'),
          query('state', 'Random; returned unchanged to the redirect URI.'),
          query('code_challenge', 'base64url of the SHA-256 of the code verifier.'),
          query('code_challenge_method', '`S256`.', {type: 'string', enum: ['S256']}),
        ],
        responses: {
          '302': {
            description:
              'Redirect to `redirect_uri` with `code` (single use, 10 minutes) and `state`, or with `error=access_denied` and `state`. An invalid request is never redirected.',
          },
        },
      },
    },
    '/oauth/token': {
      servers: appUrlServer('/api'),
      post: {
        operationId: 'token',
        summary: 'Exchange an authorization code or a refresh token for a token pair',
        tags: ['OAuth'],
        security: clientAuthSecurity,
        description:
          'The client authenticates with HTTP Basic or with client_id and client_secret in the body, not both. A refresh rotates the refresh token: re-presenting a rotated one revokes the whole token family.',
        requestBody: formOrJson('TokenRequest'),
        responses: {
          '200': ok('A new token pair.', 'TokenResponse'),
          '400': oauthErrorResponse('`invalid_request`, `invalid_grant` or `unsupported_grant_type`.'),
          '401': oauthErrorResponse('`invalid_client`.'),
          '500': oauthErrorResponse('`server_error`: retry later.'),
        },
      },
    },
    '/oauth/revoke': {
      servers: appUrlServer('/api'),
      post: {
        operationId: 'revoke',
        summary: 'Revoke a token (RFC 7009)',
        tags: ['OAuth'],
        security: clientAuthSecurity,
        description:
          'Once the client is authenticated the answer is always 200, even for an unknown token. Revoking the last live refresh token of the current consent ends the App Connection.',
        requestBody: formOrJson('RevokeRequest'),
        responses: {
          '200': {description: 'Revoked (or unknown).'},
          '400': oauthErrorResponse('`invalid_request`.'),
          '401': oauthErrorResponse('`invalid_client`.'),
          '500': oauthErrorResponse('`server_error`: retry later.'),
        },
      },
    },
  }
}

const APP_URL_VARIABLE: Json = {
  default: 'https://app.example.com',
  description: 'The root address of the service (an origin, without a trailing slash).',
}

function componentSchemas(): Record<string, Json> {
  const generated = z.toJSONSchema(contractRegistry, {
    uri: (id) => SCHEMA_REF_PREFIX + id,
    // Components describe what a client may send as well as what it reads: the input view keeps
    // request objects open to the fields version 1 may add and answers open to unknown fields.
    io: 'input',
  }).schemas as Record<string, Json>
  const schemas: Record<string, Json> = {}
  for (const id of Object.keys(generated).sort()) {
    const {$schema: _schema, $id: _id, ...rest} = generated[id] as Json
    schemas[id] = rest
  }
  return schemas
}

function componentResponses(): Record<string, Json> {
  const responses: Record<string, Json> = {}
  for (const [name, spec] of Object.entries(ERROR_RESPONSES)) {
    const response: Json = {description: spec.description, content: jsonContent(ref('ApiError'))}
    if (spec.headers) response.headers = spec.headers
    responses[name] = response
  }
  return responses
}

function webhooks(): Json {
  const header = (name: string, description: string): Json => ({name, in: 'header', required: true, description, schema: {type: 'string'}})
  return {
    appEvent: {
      post: {
        operationId: 'receiveAppEvent',
        summary: 'An App Event delivered to the App Webhook',
        description:
          'Answer 2xx within 10 seconds; anything else is retried (8 attempts over about 24 hours). Deduplicate on webhook-id; the same event can arrive more than once and out of order.',
        tags: ['Events'],
        parameters: [
          header('webhook-id', 'Equals the payload id.'),
          header('webhook-timestamp', 'Unix seconds; reject timestamps more than 5 minutes old.'),
          header(
            'webhook-signature',
            'Space-separated `v1,<base64>` entries: HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` keyed with the base64-decoded signing secret after `whsec_`.',
          ),
        ],
        requestBody: {required: true, content: jsonContent(ref('WebhookPayload'))},
        responses: {'200': {description: 'Received.'}},
      },
    },
  }
}

/**
 * The OpenAPI 3.1 document of version 1, generated from the schemas of src/contract. Pure and
 * deterministic: the same JSON-serialisable value on every call.
 */
export function buildOpenApiDocument(): Json {
  // A fresh copy each call: a caller that edits its document cannot change the next one.
  return structuredClone({
    openapi: '3.1.0',
    info: {
      title: 'Partner Integration API',
      version: '1',
      description:
        'Read Properties, Restrictions and bookings, write Restrictions through Restriction Batches, read and answer guests, read the Property Guide and lock codes. Clients must ignore unknown fields and handle unknown enum values and error codes generically. Every error answers the ApiError shape except the hosting platform\'s 413; a wrong method answers 405 `method_not_allowed` with an Allow header.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{url: `{app_url}${API_PREFIX}`, variables: {app_url: APP_URL_VARIABLE}}],
    security: [{oauth2: []}],
    tags: [
      {name: 'Properties'},
      {name: 'Restrictions'},
      {name: 'Bookings'},
      {name: 'Messages'},
      {name: 'Meta'},
      {name: 'OAuth', description: 'Served below `{app_url}`, outside the base URL; see the servers of each path.'},
      {name: 'Events'},
    ],
    paths: paths(),
    webhooks: webhooks(),
    components: {
      schemas: componentSchemas(),
      parameters: PARAMETERS,
      responses: componentResponses(),
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description:
            'Authorization code flow with PKCE (S256 mandatory). The URLs are relative to the service origin `{app_url}`. Permissions are the scopes; the owner accepts all Permissions of the App or none.',
          flows: {
            authorizationCode: {
              authorizationUrl: '/oauth/authorize',
              tokenUrl: '/api/oauth/token',
              refreshUrl: '/api/oauth/token',
              scopes: Object.fromEntries(PERMISSIONS.map((permission) => [permission, PERMISSION_DESCRIPTIONS[permission]])),
            },
          },
        },
        clientBasic: {type: 'http', scheme: 'basic', description: 'Client authentication at the token and revocation endpoints.'},
      },
    },
  })
}
