import {UUID} from '../text/id-prefix.js'
import {UsageError} from '../errors.js'

/** Ids of the API are uuids: anything else is refused before it costs a read or a place in the rate limit. */
export function assertUuid(id: string, what: string, suggestion: string): void {
  if (!UUID.test(id)) throw new UsageError(`"${id}" is not a ${what} id: ids are uuids`, {code: 'invalid_argument', suggestion})
}
