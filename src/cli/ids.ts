import {UsageError} from '../client/errors.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Ids of the API are uuids: anything else is refused before it costs a read or a place in the rate limit. */
export function assertUuid(id: string, what: string, suggestion: string): void {
  if (!UUID.test(id)) throw new UsageError(`"${id}" is not a ${what} id: ids are uuids`, {code: 'invalid_argument', suggestion})
}
