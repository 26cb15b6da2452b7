/** Where the client gets its bearer token; the auth store plugs in here, PMS_ACCESS_TOKEN uses the static one. */
export interface TokenProvider {
  /** A token to send now (may refresh first when it expires within a minute); undefined sends none. */
  getToken(): Promise<string | undefined>
  /**
   * Called once when the API answered 401 `unauthorized` for `rejected`; returns a fresh token to retry
   * with, or undefined when no refresh is possible.
   */
  refresh?(rejected: string): Promise<string | undefined>
}

/** A fixed token that cannot be refreshed: a 401 ends the call. */
export function staticTokenProvider(token: string): TokenProvider {
  return {getToken: async () => token}
}

/** No login: calls go without Authorization (public documents such as GET /openapi.json). */
export const anonymousTokenProvider: TokenProvider = {getToken: async () => undefined}
