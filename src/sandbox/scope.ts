/**
 * The Connection Scope: what an App Connection may use right now, derived from the connection, the
 * App and the account, and the one place where a narrowing scope cancels unsent Restriction changes.
 */
import type {Permission} from '../contract/limits.js'
import type {SandboxContext} from './context.js'
import type {AccountRecord, ConnectionRecord, PropertyAccess, PropertyRecord, World} from './state.js'

export type ConnectionState = 'active' | 'revoked' | 'suspended'

export function findAccount(world: World, accountId: string): AccountRecord | undefined {
  return world.accounts.find((account) => account.id === accountId)
}

export function findConnection(world: World, id: string): ConnectionRecord | undefined {
  return world.connections.find((connection) => connection.id === id)
}

export function connectionOfAccount(world: World, accountId: string): ConnectionRecord | undefined {
  return world.connections.find((connection) => connection.account_id === accountId)
}

export function connectionState(world: World, connection: ConnectionRecord): ConnectionState {
  if (connection.revoked) return 'revoked'
  const account = findAccount(world, connection.account_id)
  if (world.app.suspended || !account?.app_allowed) return 'suspended'
  return 'active'
}

/** Operator changes to the App's Permissions apply to every connection at once. */
export function effectivePermissions(world: World, connection: ConnectionRecord): Set<Permission> {
  const app = world.app.permissions.map((entry) => entry.permission)
  const granted = connection.permissions === null ? app : app.filter((permission) => connection.permissions?.includes(permission))
  return new Set(granted)
}

/** The Properties of the scope, sorted by id. Property Access `all` includes future Properties. */
export function propertiesInScope(world: World, connection: ConnectionRecord): PropertyRecord[] {
  const access = connection.property_access
  if (access === 'all') return world.properties.filter((property) => property.account_id === connection.account_id)
  const allowed = new Set(access)
  return world.properties.filter((property) => property.account_id === connection.account_id && allowed.has(property.id))
}

export function propertyInScope(world: World, connection: ConnectionRecord, propertyId: string): PropertyRecord | undefined {
  const property = world.properties.find((candidate) => candidate.id === propertyId)
  if (!property || property.account_id !== connection.account_id) return undefined
  const access = connection.property_access
  return access === 'all' || access.includes(propertyId) ? property : undefined
}

interface ScopeSnapshot {
  usable: boolean
  canWrite: boolean
  propertyIds: Set<string>
}

function snapshot(world: World, connection: ConnectionRecord): ScopeSnapshot {
  return {
    usable: connectionState(world, connection) === 'active',
    canWrite: effectivePermissions(world, connection).has('restrictions.write'),
    propertyIds: new Set(propertiesInScope(world, connection).map((property) => property.id)),
  }
}

/**
 * Runs a change of the world and cancels the unsent Restriction changes it puts out of reach:
 * connection revoked or suspended, `restrictions.write` withdrawn, a Property leaving the Property
 * Access. Cancellation is permanent: reactivating the App later does not bring them back.
 */
export function changeScope<T>(ctx: SandboxContext, change: () => T): T {
  const before = new Map(ctx.world.connections.map((connection) => [connection.id, snapshot(ctx.world, connection)]))
  const result = change()
  for (const connection of ctx.world.connections) {
    const was = before.get(connection.id)
    if (!was) continue
    const now = snapshot(ctx.world, connection)
    if ((was.usable && !now.usable) || (was.canWrite && !now.canWrite)) {
      ctx.cancelUnsent((ref) => ref.connectionId === connection.id, 'connection')
      continue
    }
    const removed = [...was.propertyIds].filter((id) => !now.propertyIds.has(id))
    if (removed.length > 0) {
      const gone = new Set(removed)
      ctx.cancelUnsent((ref) => ref.connectionId === connection.id && gone.has(ref.propertyId), 'property')
    }
  }
  return result
}

export function removeFromAccess(world: World, connection: ConnectionRecord, propertyId: string): PropertyAccess {
  const current = connection.property_access === 'all' ? propertiesInScope(world, connection).map((property) => property.id) : connection.property_access
  connection.property_access = current.filter((id) => id !== propertyId)
  return connection.property_access
}

/** The owner allows a Property of the account again; an access of "all" already holds it. */
export function addToAccess(world: World, connection: ConnectionRecord, propertyId: string): PropertyAccess {
  if (connection.property_access !== 'all' && !connection.property_access.includes(propertyId)) {
    connection.property_access = [...connection.property_access, propertyId]
  }
  return connection.property_access
}
