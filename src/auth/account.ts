import {ExitCode, PmsError} from '../errors.js'
import {PmsClient} from '../client/index.js'
import {staticTokenProvider} from '../client/token-provider.js'
import type {Transport} from '../client/transport.js'

/**
 * The account an App Connection acts for, as far as the API tells: no endpoint names the account
 * (it is derived from the token), so it is named by the Properties of its Property Access.
 */
export interface PropertyAccess {
  /** Properties the connection may act on; null when they could not be read. */
  properties: number | null
  /** "the account of Central Loft, Harbour View and 5 more Properties"; null when the Properties could not be read. */
  account: string | null
  /** Why the Properties were not read, when they were not. */
  note?: string
}

/** Names the account by up to two of its Properties (by name) and how many more it has. */
export function accountLabel(names: readonly string[]): string {
  if (names.length === 0) return 'an account with no Property in its Property Access'
  const sorted = [...names].sort((a, b) => a.localeCompare(b))
  const shown = sorted.slice(0, 2)
  const rest = sorted.length - shown.length
  if (rest === 0) return `the account of ${shown.join(' and ')}`
  return `the account of ${shown.join(', ')} and ${rest} more ${rest === 1 ? 'Property' : 'Properties'}`
}

/**
 * Reads every Property of the connection (pages of 100, paced like any read): their number is the
 * size of the Property Access, their names name the account. A missing properties.read, or a
 * passing failure, is a note rather than an error: the login or status it serves stands anyway.
 */
export async function readPropertyAccess(http: Transport, accessToken: string): Promise<PropertyAccess> {
  // Not closed here: the pool is the caller's.
  const client = new PmsClient(http.withTokens(staticTokenProvider(accessToken)))
  try {
    const names: string[] = []
    for await (const page of client.properties.pages({limit: 100})) names.push(...page.data.map((property) => property.name))
    return {properties: names.length, account: accountLabel(names)}
  } catch (error) {
    if ((error as {code?: string}).code === 'forbidden_permission') {
      return {properties: null, account: null, note: 'the App may not read Properties (properties.read), so they were not counted'}
    }
    if (error instanceof PmsError && error.exitCode === ExitCode.tempFailure) {
      return {properties: null, account: null, note: `the Properties could not be counted just now (${error.message}); pms auth status checks the connection later`}
    }
    throw error
  }
}
