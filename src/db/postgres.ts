/**
 * What every PostgreSQL user of pms shares (the bookings sink, the webhook inbox): telling a
 * postgres:// address from a file, showing it without its password, and telling a lost connection
 * from a wrong statement.
 */
/** A postgres:// or postgresql:// address (a --to of bookings sync, a --store of webhooks listen), not a file. */
export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target)
}

/** The address as shown in summaries and errors: without its password. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@')
  }
}

/**
 * Whether a failed query means the connection is gone rather than that the statement was wrong:
 * SQLSTATE class 08 (connection exception), 57P01-57P03 (the server shut down or ended the
 * session) and 57P05 (idle session timeout), or a socket error of Node (ECONNRESET, EPIPE, ...), which carries an errno.
 */
export function isConnectionLoss(error: unknown): boolean {
  const {code, errno} = (error ?? {}) as {code?: unknown; errno?: unknown}
  if (typeof code !== 'string') return false
  if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[1235]$/.test(code)) return true
  return typeof errno === 'number' && /^E[A-Z]+$/.test(code)
}
