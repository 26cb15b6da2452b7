/**
 * The admin API outside /api/v1, for tests and demos (docs/sandbox.md): consent without a browser,
 * the request log, faults, operator and owner actions, host actions and the sandbox clock.
 */
import {randomBytes} from 'node:crypto'
import {PERMISSIONS, type Permission} from '../../contract/limits.js'
import type {SandboxFeatureHooks} from '../feature.js'
import {ATTACHMENT_BODY_FAULTS, FAIL_STATUSES, FAULT_FIELDS, SEND_FAILURE_OUTCOMES, type FaultState} from '../faults.js'
import {ApiFailure, validationFailed, type ApiServer} from '../http.js'
import {consent, exchangeCode, issueCode, revokeConnection, s256} from '../oauth/tokens.js'
import {addToAccess, changeScope, connectionOfAccount, connectionState, effectivePermissions, findAccount, removeFromAccess} from '../scope.js'
import {sortProperties, type AccountRecord} from '../state.js'

function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {}
  if (typeof body !== 'object' || Array.isArray(body)) throw validationFailed([{path: 'body', message: 'must be a JSON object'}])
  return body as Record<string, unknown>
}

function permissionList(value: unknown, path: string): Permission[] {
  if (!Array.isArray(value) || value.some((item) => !(PERMISSIONS as readonly unknown[]).includes(item))) {
    throw validationFailed([{path, message: `must be an array of: ${PERMISSIONS.join(', ')}`}])
  }
  return [...new Set(value as Permission[])]
}

export function registerAdminRoutes(api: ApiServer, features: SandboxFeatureHooks[]): void {
  const {app, ctx} = api
  const {world} = ctx

  const account = (value: unknown, path = 'account_id'): AccountRecord => {
    if (value === undefined) return world.accounts[0] as AccountRecord
    const found = typeof value === 'string' ? findAccount(world, value) : undefined
    if (!found) throw new ApiFailure(404, 'not_found', `No account ${String(value)}.`, {path})
    return found
  }

  const connectionsView = () =>
    world.connections.map((connection) => ({
      id: connection.id,
      account_id: connection.account_id,
      state: connectionState(world, connection),
      subscription_blocked: findAccount(world, connection.account_id)?.subscription_blocked ?? false,
      permissions: [...effectivePermissions(world, connection)],
      property_access: connection.property_access,
    }))

  app.get('/_sandbox', async () => ({
    app: {
      name: world.app.name,
      publisher: world.app.publisher,
      client_id: world.app.client_id,
      redirect_uris: world.app.redirect_uris,
      permissions: world.app.permissions.map((entry) => entry.permission),
      suspended: world.app.suspended,
    },
    accounts: world.accounts.map((entry) => ({
      ...entry,
      property_count: world.properties.filter((property) => property.account_id === entry.id).length,
    })),
    connections: connectionsView(),
    clock: {now: new Date(ctx.clock.now()).toISOString(), speed: ctx.clock.speed},
    rate_limits: api.limiter.enabled,
  }))

  app.get('/_sandbox/connections', async () => ({data: connectionsView()}))

  app.get('/_sandbox/accounts/:id/properties', async (request) => {
    const owner = account((request.params as {id: string}).id)
    return {data: world.properties.filter((property) => property.account_id === owner.id).map(({account_id: _, ...rest}) => rest)}
  })

  app.post('/_sandbox/connect', async (request, reply) => {
    const body = objectBody(request.body)
    const owner = account(body.account_id)
    if (world.app.suspended) throw new ApiFailure(403, 'app_suspended', 'The operator suspended the App: it cannot be connected now.')
    if (!owner.app_allowed) throw new ApiFailure(403, 'account_not_allowed', 'The App is private and not allowed on this account.')
    const permissions = body.permissions === undefined ? null : permissionList(body.permissions, 'permissions')
    let access: 'all' | string[] = 'all'
    if (body.property_ids !== undefined) {
      const ids = body.property_ids
      const own = new Set(world.properties.filter((property) => property.account_id === owner.id).map((property) => property.id))
      if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => typeof id !== 'string' || !own.has(id))) {
        throw validationFailed([{path: 'property_ids', message: 'must be a non-empty array of Property ids of the account'}])
      }
      access = [...new Set(ids as string[])]
    }
    const connection = consent(ctx, {accountId: owner.id, permissions, propertyAccess: access})
    const verifier = randomBytes(32).toString('base64url')
    const redirectUri = world.app.redirect_uris[0] as string
    const code = issueCode(ctx, connection, {clientId: world.app.client_id, redirectUri, codeChallenge: s256(verifier)})
    const pair = exchangeCode(ctx, {clientId: world.app.client_id, code, redirectUri, codeVerifier: verifier})
    // Answered exactly as the token endpoint answers a code exchange.
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(pair)
  })

  app.get('/_sandbox/requests', async () => ({
    data: api.requestLog.list().map((entry) => ({...entry, at: new Date(entry.at).toISOString()})),
  }))
  app.delete('/_sandbox/requests', async (_request, reply) => {
    api.requestLog.clear()
    return reply.code(204).send()
  })

  app.get('/_sandbox/events', async () => ({
    data: ctx.events.log.map(({gone: _, ...event}) => ({...event, created_at: new Date(event.created_at).toISOString()})),
  }))

  // Triggers: each NAME belongs to the feature that registered it (a NAME twice is a bug of the sandbox).
  const triggers = new Map<string, NonNullable<SandboxFeatureHooks['triggers']>[string]>()
  for (const hooks of features) {
    for (const [name, handler] of Object.entries(hooks.triggers ?? {})) {
      if (triggers.has(name)) throw new Error(`trigger ${name} is registered by two sandbox features`)
      triggers.set(name, handler)
    }
  }
  app.post('/_sandbox/events', async (request, reply) => {
    const {trigger, ...rest} = objectBody(request.body)
    const known = [...triggers.keys()].sort()
    const handler = typeof trigger === 'string' ? triggers.get(trigger) : undefined
    if (handler === undefined) {
      throw new ApiFailure(422, 'validation_failed', `Unknown trigger ${JSON.stringify(trigger ?? null)}; known: ${known.join(', ')}.`, {
        issues: [{path: 'trigger', message: `must be one of ${known.join(', ')}`}],
        triggers: known,
      })
    }
    const result = await handler(rest)
    return reply.code(201).send({trigger, ...result, events: result.events.map((event) => ({id: event.id, type: event.type}))})
  })

  app.post('/_sandbox/faults', async (request) => {
    const body = objectBody(request.body)
    // A misspelt fault would otherwise be a silent no-op, and a test built on it passes by luck.
    const unknown = Object.keys(body).filter((name) => !FAULT_FIELDS.has(name))
    if (unknown.length > 0) {
      throw validationFailed(
        unknown.map((name) => ({path: name, message: `is not a fault; known: ${[...FAULT_FIELDS].join(', ')}`})),
        `Unknown fault ${unknown.map((name) => JSON.stringify(name)).join(', ')}.`,
      )
    }
    const probability = (name: string) => {
      const value = body[name]
      if (value === undefined) return 0
      if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw validationFailed([{path: name, message: 'must be a number from 0 to 1'}])
      return value
    }
    const failStatus = body.fail_status ?? 500
    if (!(FAIL_STATUSES as readonly unknown[]).includes(failStatus)) throw validationFailed([{path: 'fail_status', message: 'must be 500, 502 or 429'}])
    const outage = body.channel_outage_seconds ?? 0
    if (typeof outage !== 'number' || !(outage >= 0)) throw validationFailed([{path: 'channel_outage_seconds', message: 'must be a number >= 0'}])
    const sendFailureOutcome = body.send_failure_outcome ?? 'not_sent'
    if (!(SEND_FAILURE_OUTCOMES as readonly unknown[]).includes(sendFailureOutcome)) {
      throw validationFailed([{path: 'send_failure_outcome', message: `must be one of ${SEND_FAILURE_OUTCOMES.join(', ')}`}])
    }
    const duplicate = probability('duplicate_delivery')
    const delay = body.delay_seconds ?? 0
    if (typeof delay !== 'number' || !(delay >= 0 && delay <= 600)) throw validationFailed([{path: 'delay_seconds', message: 'must be a number from 0 to 600', maximum: 600}])
    const attachmentBody = body.attachment_body ?? null
    if (attachmentBody !== null && !(ATTACHMENT_BODY_FAULTS as readonly unknown[]).includes(attachmentBody)) {
      throw validationFailed([{path: 'attachment_body', message: `must be one of ${ATTACHMENT_BODY_FAULTS.join(', ')}`}])
    }
    const omit = body.omit_field ?? null
    if (omit !== null && (typeof omit !== 'string' || omit === '')) throw validationFailed([{path: 'omit_field', message: 'must be a field name'}])
    // Each call replaces the whole fault set: {} clears everything.
    Object.assign(ctx.faults, {
      drop_response: probability('drop_response'),
      fail: probability('fail'),
      fail_status: failStatus,
      channel_outage_until: outage > 0 ? ctx.clock.now() + outage * 1000 : 0,
      channel_outage_properties: {},
      duplicate_delivery: duplicate,
      drop_events: probability('drop_events'),
      delay_ms: delay * 1000,
      send_failure: probability('send_failure'),
      send_failure_outcome: sendFailureOutcome,
      attachment_unavailable: probability('attachment_unavailable'),
      omit_field: omit,
      attachment_body: attachmentBody as FaultState['attachment_body'],
    })
    return faultsView()
  })
  app.get('/_sandbox/faults', async () => faultsView())
  const faultsView = () => ({
    drop_response: ctx.faults.drop_response,
    fail: ctx.faults.fail,
    fail_status: ctx.faults.fail_status,
    channel_outage_until: ctx.faults.channel_outage_until > ctx.clock.now() ? new Date(ctx.faults.channel_outage_until).toISOString() : null,
    channel_outage_properties: Object.fromEntries(
      Object.entries(ctx.faults.channel_outage_properties)
        .filter(([, until]) => until > ctx.clock.now())
        .map(([id, until]) => [id, new Date(until).toISOString()]),
    ),
    duplicate_delivery: ctx.faults.duplicate_delivery,
    drop_events: ctx.faults.drop_events,
    delay_seconds: ctx.faults.delay_ms / 1000,
    send_failure: ctx.faults.send_failure,
    send_failure_outcome: ctx.faults.send_failure_outcome,
    attachment_unavailable: ctx.faults.attachment_unavailable,
    omit_field: ctx.faults.omit_field,
    attachment_body: ctx.faults.attachment_body,
  })

  app.post('/_sandbox/operator', async (request) => {
    const body = objectBody(request.body)
    const action = body.action
    changeScope(ctx, () => {
      switch (action) {
        case 'suspend_app':
          world.app.suspended = true
          break
        case 'reactivate_app':
          world.app.suspended = false
          break
        case 'disallow_account':
          account(body.account_id).app_allowed = false
          break
        case 'allow_account':
          account(body.account_id).app_allowed = true
          break
        case 'block_subscription':
          account(body.account_id).subscription_blocked = true
          break
        case 'restore_subscription':
          account(body.account_id).subscription_blocked = false
          break
        case 'set_permissions': {
          const permissions = permissionList(body.permissions, 'permissions')
          world.app.permissions = PERMISSIONS.filter((permission) => permissions.includes(permission)).map((permission) => ({
            permission,
            why: world.app.permissions.find((entry) => entry.permission === permission)?.why ?? `Needed by ${world.app.name}.`,
          }))
          break
        }
        case 'remove_property':
        case 'add_property': {
          const owner = account(body.account_id)
          const connection = connectionOfAccount(world, owner.id)
          if (!connection) throw new ApiFailure(404, 'not_found', 'The account has no App Connection.')
          if (typeof body.property_id !== 'string') throw validationFailed([{path: 'property_id', message: 'is required'}])
          if (action === 'remove_property') {
            removeFromAccess(world, connection, body.property_id)
            break
          }
          const property = world.properties.find((candidate) => candidate.id === body.property_id)
          if (property?.account_id !== owner.id) throw new ApiFailure(404, 'not_found', 'No such Property on this account.')
          addToAccess(world, connection, property.id)
          break
        }
        case 'rename_property': {
          const property = world.properties.find((candidate) => candidate.id === body.property_id)
          if (!property) throw new ApiFailure(404, 'not_found', 'No such Property.')
          if (typeof body.name !== 'string' || body.name.length === 0) throw validationFailed([{path: 'name', message: 'is required'}])
          property.name = body.name
          sortProperties(world)
          break
        }
        default:
          throw validationFailed([
            {
              path: 'action',
              message:
                'must be one of suspend_app, reactivate_app, disallow_account, allow_account, block_subscription, restore_subscription, set_permissions, remove_property, add_property, rename_property',
            },
          ])
      }
    })
    return {connections: connectionsView(), app_suspended: world.app.suspended}
  })

  app.post('/_sandbox/owner', async (request) => {
    const body = objectBody(request.body)
    if (body.action !== 'revoke') throw validationFailed([{path: 'action', message: 'must be revoke'}])
    const connection = connectionOfAccount(world, account(body.account_id).id)
    if (!connection) throw new ApiFailure(404, 'not_found', 'The account has no App Connection.')
    revokeConnection(ctx, connection)
    return {connections: connectionsView()}
  })

  app.post('/_sandbox/host', async (request) => {
    const handler = features.find((hooks) => hooks.host)
    if (!handler?.host) throw new ApiFailure(404, 'not_found', 'No host actions are available in this sandbox.')
    return (await handler.host(request.body)) ?? {}
  })

  app.post('/_sandbox/clock', async (request) => {
    const body = objectBody(request.body)
    const seconds = body.advance_seconds
    if (typeof seconds !== 'number' || !(seconds >= 0)) throw validationFailed([{path: 'advance_seconds', message: 'must be a number >= 0'}])
    ctx.clock.advance(seconds * 1000)
    return {now: new Date(ctx.clock.now()).toISOString(), speed: ctx.clock.speed}
  })
}
