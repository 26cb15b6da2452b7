/**
 * Redaction for the `--debug` trace. Pure functions so that what may never be printed is tested
 * once, here, rather than at every place that writes a trace line.
 */

export const REDACTED = '[redacted]'

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie'])
const URL_HEADERS = new Set(['location', 'content-location', 'referer'])

/** Body and query fields that carry a credential in requests (OAuth bodies, callback URLs, tokens). */
export const REQUEST_SECRET_FIELDS: ReadonlySet<string> = new Set([
  'access_token',
  'refresh_token',
  'client_secret',
  'code',
  'code_verifier',
  'token',
  'password',
  'webhook_secret',
])

/**
 * In answers `code` names error codes and Sales Channels, which a trace must show; the
 * authorization code never travels in an answer body.
 */
export const RESPONSE_SECRET_FIELDS: ReadonlySet<string> = new Set([
  ...[...REQUEST_SECRET_FIELDS].filter((field) => field !== 'code'),
  // Door codes of GET /bookings/{id}/lock-codes: printed on stdout when asked for, never in a debug log.
  'lock_code',
  'static_code',
])

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    const text = Array.isArray(value) ? value.join(', ') : value
    // A redirect of the authorize endpoint carries the authorization code in its query.
    if (URL_HEADERS.has(name.toLowerCase())) out[name] = redactUrl(text)
    else if (!SECRET_HEADERS.has(name.toLowerCase())) out[name] = text
    else if (name.toLowerCase() === 'authorization' || name.toLowerCase() === 'proxy-authorization') {
      const scheme = /^(\w+)\s/.exec(text)?.[1]
      out[name] = scheme ? `${scheme} ${REDACTED}` : REDACTED
    } else out[name] = REDACTED
  }
  return out
}

/** Replaces the value of every secret field, at any depth. */
export function redactJson(value: unknown, fields: ReadonlySet<string> = REQUEST_SECRET_FIELDS): unknown {
  if (Array.isArray(value)) return value.map((item) => redactJson(item, fields))
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    out[key] = fields.has(key) && item !== null && typeof item !== 'object' ? REDACTED : redactJson(item, fields)
  }
  return out
}

function redactParams(params: URLSearchParams, fields: ReadonlySet<string>): string {
  const parts: string[] = []
  for (const [key, value] of params) {
    const shown = fields.has(key) ? REDACTED : value
    parts.push(`${encodeURIComponent(key)}=${fields.has(key) ? shown : encodeURIComponent(shown)}`)
  }
  return parts.join('&')
}

const RELATIVE_BASE = 'http://relative.invalid'

/** Redacts secret query parameters and any userinfo of a URL. */
export function redactUrl(url: string, fields: ReadonlySet<string> = REQUEST_SECRET_FIELDS): string {
  let parsed: URL
  let relative = false
  try {
    parsed = new URL(url)
  } catch {
    // A relative reference (a Location header may be one): parsed against a placeholder origin.
    try {
      parsed = new URL(url, RELATIVE_BASE)
      relative = true
    } catch {
      return url
    }
  }
  if (parsed.username || parsed.password) {
    parsed.username = REDACTED
    parsed.password = ''
  }
  const query = parsed.search ? '?' + redactParams(parsed.searchParams, fields) : ''
  parsed.search = ''
  const base = relative ? parsed.toString().slice(RELATIVE_BASE.length) : parsed.toString()
  return base.replace(/\?$/, '') + query
}

/**
 * Redacts a body for the trace, whatever its type: JSON, form-encoded, or anything else (shown
 * as its size only, since a binary or unknown body cannot be searched for secrets reliably).
 */
export function redactBody(
  text: string,
  contentType: string | undefined,
  fields: ReadonlySet<string> = REQUEST_SECRET_FIELDS,
  maxLength = 2000,
): string {
  const type = (contentType ?? '').toLowerCase()
  let shown: string
  if (type.includes('json') || (!type && /^\s*[[{]/.test(text))) {
    try {
      shown = JSON.stringify(redactJson(JSON.parse(text), fields))
    } catch {
      shown = `[${Buffer.byteLength(text)} bytes, not valid JSON]`
    }
  } else if (type.includes('application/x-www-form-urlencoded')) {
    shown = redactParams(new URLSearchParams(text), fields)
  } else if (type.startsWith('text/')) {
    shown = text
  } else {
    return `[${Buffer.byteLength(text)} bytes of ${contentType ?? 'unknown type'}]`
  }
  return shown.length > maxLength ? `${shown.slice(0, maxLength)}... [${shown.length - maxLength} more characters]` : shown
}
