import {UnexpectedResponseError} from './errors.js'

export interface Page<T> {
  data: T[]
  next_cursor: string | null
}

/**
 * Walks a cursor-paged list: the first call without cursor, then each `next_cursor` until null.
 * Pages are yielded as they come so that a caller can save its position after each one.
 * `cursorOf` reads the next cursor where a page is not a parsed Page (raw answers of `pms api`).
 */
export async function* walkPages<P>(
  fetchPage: (cursor: string | undefined) => Promise<P>,
  cursorOf: (page: P) => unknown = (page) => (page as Partial<Page<unknown>>).next_cursor,
): AsyncGenerator<P> {
  const seen = new Set<string>()
  let cursor: string | undefined
  for (;;) {
    const page = await fetchPage(cursor)
    yield page
    const next = cursorOf(page)
    if (typeof next !== 'string' || next === '') return
    // A cursor that comes back would loop forever; the contract's walks never repeat.
    if (seen.has(next)) throw new UnexpectedResponseError(`The service handed out the cursor ${next} twice`)
    seen.add(next)
    cursor = next
  }
}

/** The items of every page, in order. */
export async function* walkItems<T>(pages: AsyncIterable<Page<T>>): AsyncGenerator<T> {
  for await (const page of pages) yield* page.data
}
