/** One profile's credentials, as one entry of a store. */
export interface StoredCredentials {
  access_token?: string
  refresh_token?: string
  /** When the access token stops working, ms since the epoch. */
  expires_at?: number
  client_secret?: string
  /** The service that issued the tokens: they and the client secret are sent to it alone. */
  app_url?: string
}

export type TokenStoreKind = 'keychain' | 'file' | 'memory'

/** Where one profile's credentials live: the OS keychain, a 0600 file, or memory (tests). */
export interface TokenStore {
  readonly kind: TokenStoreKind
  /** For `pms auth status`: which store and which entry, no secret. */
  readonly description: string
  /** Undefined when the entry does not exist. */
  read(): Promise<StoredCredentials | undefined>
  write(credentials: StoredCredentials): Promise<void>
  /** True when something was deleted. */
  delete(): Promise<boolean>
}

/** Serialised form: one JSON document per entry, expiry as an ISO instant so that it reads well. */
export function serializeCredentials(credentials: StoredCredentials): string {
  return JSON.stringify({
    version: 1,
    ...(credentials.access_token ? {access_token: credentials.access_token} : {}),
    ...(credentials.refresh_token ? {refresh_token: credentials.refresh_token} : {}),
    ...(credentials.expires_at !== undefined ? {expires_at: new Date(credentials.expires_at).toISOString()} : {}),
    ...(credentials.client_secret ? {client_secret: credentials.client_secret} : {}),
    ...(credentials.app_url ? {app_url: credentials.app_url} : {}),
  })
}

/** Unreadable entries come back as undefined: the profile then simply needs a new login. */
export function parseCredentials(text: string): StoredCredentials | undefined {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof raw !== 'object' || raw === null) return undefined
  const record = raw as Record<string, unknown>
  const out: StoredCredentials = {}
  if (typeof record.access_token === 'string' && record.access_token) out.access_token = record.access_token
  if (typeof record.refresh_token === 'string' && record.refresh_token) out.refresh_token = record.refresh_token
  if (typeof record.client_secret === 'string' && record.client_secret) out.client_secret = record.client_secret
  if (typeof record.app_url === 'string' && record.app_url) out.app_url = record.app_url
  if (typeof record.expires_at === 'string') {
    const at = Date.parse(record.expires_at)
    if (Number.isFinite(at)) out.expires_at = at
  } else if (typeof record.expires_at === 'number' && Number.isFinite(record.expires_at)) out.expires_at = record.expires_at
  return out
}

export class MemoryTokenStore implements TokenStore {
  readonly kind = 'memory' as const
  readonly description = 'memory'
  private text?: string
  reads = 0
  writes = 0

  constructor(initial?: StoredCredentials) {
    if (initial) this.text = serializeCredentials(initial)
  }

  async read(): Promise<StoredCredentials | undefined> {
    this.reads++
    return this.text === undefined ? undefined : parseCredentials(this.text)
  }

  async write(credentials: StoredCredentials): Promise<void> {
    this.writes++
    this.text = serializeCredentials(credentials)
  }

  async delete(): Promise<boolean> {
    const existed = this.text !== undefined
    this.text = undefined
    return existed
  }
}
