import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {FastifyInstance} from 'fastify'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BookingsPageSchema, LockCodesAnswerSchema, PERMISSIONS} from '../../../src/contract/index.js'
import {bookingsOf} from '../../../src/sandbox/bookings/feature.js'
import {codeHistory, locksOf} from '../../../src/sandbox/bookings/locks.js'
import type {BookingRecord} from '../../../src/sandbox/state.js'
import {connect, makeSandbox} from './harness.js'

/**
 * Bookings over real HTTP: the sandbox listens on 127.0.0.1 and is called with fetch, as a client
 * would. Booking changes are made in-process (the Sales Channels' side) or through the admin API.
 */

interface Answer {
  status: number
  body: any // eslint-disable-line @typescript-eslint/no-explicit-any
}

interface Served {
  app: FastifyInstance
  url: string
  get(path: string, token: string): Promise<Answer>
  admin(path: string, body?: unknown): Promise<Answer>
  token(body?: Record<string, unknown>): Promise<string>
  close(): Promise<void>
}

async function serve(options: Parameters<typeof makeSandbox>[0] = {}): Promise<Served> {
  const app = makeSandbox({rateLimits: false, ...options})
  await app.listen({host: '127.0.0.1', port: 0})
  const address = app.server.address()
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  const answer = async (response: Response): Promise<Answer> => ({status: response.status, body: await response.json()})
  return {
    app,
    url,
    get: async (path, token) => answer(await fetch(`${url}/api/v1${path}`, {headers: {authorization: `Bearer ${token}`}})),
    admin: async (path, body) =>
      answer(
        await fetch(url + path, body === undefined ? {} : {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)}),
      ),
    token: async (body = {}) => (await connect(app, body)).access_token,
    close: () => app.close(),
  }
}

const bookings = (served: Served) => bookingsOf(served.app.sandbox.ctx.world)!
const firstAccount = (served: Served) => served.app.sandbox.ctx.world.accounts[0]!.id
const accountOf = (served: Served, propertyId: string) => served.app.sandbox.ctx.world.properties.find((property) => property.id === propertyId)?.account_id
const ownBookings = (served: Served) => bookings(served).list().filter((booking) => accountOf(served, booking.property_id) === firstAccount(served))

/** Reads every page of GET /bookings; returns the bookings and the last page's next_updated_since. */
async function walk(served: Served, token: string, query: string, between?: (page: number) => void | Promise<void>) {
  const seen: Array<Record<string, any>> = [] // eslint-disable-line @typescript-eslint/no-explicit-any
  let cursor: string | null = null
  let nextUpdatedSince = ''
  let page = 0
  do {
    const answer = await served.get(`/bookings?${query}${cursor ? `&cursor=${cursor}` : ''}`, token)
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(BookingsPageSchema.safeParse(answer.body).success).toBe(true)
    seen.push(...answer.body.data)
    cursor = answer.body.next_cursor
    nextUpdatedSince = answer.body.next_updated_since
    await between?.(page++)
  } while (cursor)
  return {seen, nextUpdatedSince, pages: page}
}

describe('seeded bookings', () => {
  let served: Served
  let token: string
  beforeAll(async () => {
    served = await serve({bookings: 3000})
    token = await served.token()
  })
  afterAll(() => served.close())

  it('--bookings N seeds N bookings over the Properties of both accounts, deterministic from --seed', async () => {
    expect(bookings(served).list()).toHaveLength(3000)
    const properties = new Set(bookings(served).list().map((booking) => booking.property_id))
    expect(properties.size).toBeGreaterThan(100)
    const accounts = new Set([...properties].map((id) => accountOf(served, id)))
    expect(accounts.size).toBe(2)
    const again = makeSandbox({bookings: 3000})
    try {
      expect(bookingsOf(again.sandbox.ctx.world)!.list()).toEqual(bookings(served).list())
    } finally {
      await again.close()
    }
    const other = makeSandbox({bookings: 3000, seed: 2})
    try {
      expect(bookingsOf(other.sandbox.ctx.world)!.list()[0]?.id).not.toBe(bookings(served).list()[0]?.id)
    } finally {
      await other.close()
    }
  })

  it('spread over Sales Channels (direct, website, other and channel shortcodes), statuses including cancelled, some without stay dates, with guest contact and amounts', async () => {
    const {seen} = await walk(served, token, 'limit=500')
    expect(seen.length).toBe(ownBookings(served).length)
    const codes = new Set(seen.map((booking) => booking.sales_channel.code))
    for (const code of ['direct', 'website', 'other', 'airbnb', 'bookingcom']) expect(codes).toContain(code)
    const statuses = new Set(seen.map((booking) => booking.status))
    expect([...statuses].sort()).toEqual(['cancelled', 'confirmed', 'tentative'])
    expect(seen.some((booking) => booking.check_in === null && booking.check_out === null)).toBe(true)
    expect(seen.some((booking) => booking.guest.email !== null && booking.guest.phone !== null)).toBe(true)
    expect(seen.some((booking) => booking.guest.email === null)).toBe(true)
    expect(seen.every((booking) => typeof booking.price.total === 'number' && booking.price.currency.length === 3)).toBe(true)
    for (const booking of seen) if (booking.check_in !== null) expect(booking.check_out > booking.check_in).toBe(true)
  })
})

describe('GET /bookings', () => {
  let served: Served
  let token: string
  beforeAll(async () => {
    served = await serve({bookings: 1500})
    token = await served.token()
  })
  afterAll(() => served.close())

  it('answers pages in the shape of contract-gaps rows 3 and 11, ordered by updated_at then id, limit default 100, 500 works', async () => {
    const first = await served.get('/bookings', token)
    expect(first.status).toBe(200)
    expect(first.body.data).toHaveLength(100)
    const big = await served.get('/bookings?limit=500', token)
    expect(big.body.data).toHaveLength(500)
    const keys = big.body.data.map((booking: {updated_at: string; id: string}) => `${booking.updated_at} ${booking.id}`)
    expect(keys).toEqual([...keys].sort())
    const {seen} = await walk(served, token, 'limit=500')
    expect(new Set(seen.map((booking) => booking.id)).size).toBe(seen.length)
    expect(seen).toHaveLength(ownBookings(served).length)
  })

  it.each([
    ['limit=0', 'query.limit', undefined],
    ['limit=501', 'query.limit', 500],
    ['limit=ten', 'query.limit', undefined],
    ['updated_since=yesterday', 'query.updated_since', undefined],
    ['cursor=nonsense', 'query.cursor', undefined],
    ['from=2026-13-01', 'query.from', undefined],
    ['from=2026-12-10&to=2026-12-01', 'query.to', undefined],
    ['from=2026-01-01&to=2027-01-02', 'query.to', 366],
    ['property_id[]=not-a-uuid', 'query.property_id[][0]', undefined],
  ])('%s answers 422 validation_failed naming %s', async (query, path, maximum) => {
    const answer = await served.get(`/bookings?${query}`, token)
    expect(answer.status).toBe(422)
    expect(answer.body.error.code).toBe('validation_failed')
    const issue = answer.body.error.details.issues.find((candidate: {path: string}) => candidate.path === path)
    expect(issue).toBeDefined()
    if (maximum !== undefined) expect(issue.maximum).toBe(maximum)
  })

  it('property_id[] filters, at most 100 per call (422 maximum 100), each in the Connection Scope (422 property_out_of_scope)', async () => {
    const own = served.app.sandbox.ctx.world.properties.filter((property) => property.account_id === firstAccount(served))
    const [a, b] = [own[0]!.id, own[1]!.id]
    const {seen} = await walk(served, token, `limit=500&property_id[]=${a}&property_id[]=${b}`)
    expect(seen.length).toBe(ownBookings(served).filter((booking) => booking.property_id === a || booking.property_id === b).length)
    expect(seen.every((booking) => booking.property_id === a || booking.property_id === b)).toBe(true)
    const tooMany = own.slice(0, 101).map((property) => `property_id[]=${property.id}`).join('&')
    const refused = await served.get(`/bookings?${tooMany}`, token)
    expect(refused.status).toBe(422)
    expect(refused.body.error.details.issues[0]).toMatchObject({path: 'query.property_id[]', maximum: 100})
    const exactly100 = own.slice(0, 100).map((property) => `property_id[]=${property.id}`).join('&')
    expect((await served.get(`/bookings?${exactly100}`, token)).status).toBe(200)
    const foreign = served.app.sandbox.ctx.world.properties.find((property) => property.account_id !== firstAccount(served))!.id
    const outside = await served.get(`/bookings?property_id[]=${a}&property_id[]=${foreign}`, token)
    expect(outside.status).toBe(422)
    expect(outside.body.error).toMatchObject({code: 'property_out_of_scope', details: {property_ids: [foreign]}})
  })

  it('without property_id[] pages through every booking of the Connection Scope only', async () => {
    const own = served.app.sandbox.ctx.world.properties.filter((property) => property.account_id === firstAccount(served))
    const listed = own.slice(0, 3).map((property) => property.id)
    const narrow = await served.token({property_ids: listed})
    const {seen} = await walk(served, narrow, 'limit=500')
    expect(seen.length).toBe(bookings(served).list().filter((booking) => listed.includes(booking.property_id)).length)
    expect(seen.every((booking) => listed.includes(booking.property_id))).toBe(true)
    token = await served.token()
  })

  it('from/to select stays meeting the range (to inclusive); bookings without stay dates are left out', async () => {
    const from = '2027-01-10'
    const to = '2027-01-20'
    const {seen} = await walk(served, token, `limit=500&from=${from}&to=${to}`)
    const expected = ownBookings(served).filter((booking) => booking.check_in !== null && booking.check_in <= to && booking.check_out! > from)
    expect(seen.map((booking) => booking.id).sort()).toEqual(expected.map((booking) => booking.id).sort())
    expect(seen.length).toBeGreaterThan(0)
  })

  it('needs bookings.read (403 forbidden_permission)', async () => {
    const limited = await served.token({permissions: ['properties.read']})
    const answer = await served.get('/bookings', limited)
    expect(answer.status).toBe(403)
    expect(answer.body.error.code).toBe('forbidden_permission')
    token = await served.token()
  })

  it('guest contact details only with guests.read, amounts only with prices.read (absent, not null, without them)', async () => {
    const without = await served.token({permissions: ['bookings.read']})
    const bare = (await served.get('/bookings?limit=50', without)).body.data
    for (const booking of bare) {
      expect(Object.keys(booking.guest)).toEqual(['name'])
      expect(booking).not.toHaveProperty('price')
    }
    const guests = await served.token({permissions: ['bookings.read', 'guests.read']})
    const withGuests = (await served.get('/bookings?limit=50', guests)).body.data
    for (const booking of withGuests) {
      expect(Object.keys(booking.guest).sort()).toEqual(['email', 'name', 'phone'])
      expect(booking).not.toHaveProperty('price')
    }
    const prices = await served.token({permissions: ['bookings.read', 'prices.read']})
    const withPrices = (await served.get('/bookings?limit=50', prices)).body.data
    for (const booking of withPrices) {
      expect(Object.keys(booking.guest)).toEqual(['name'])
      expect(booking.price).toEqual(bookings(served).find(booking.id)!.price)
    }
    token = await served.token()
  })

  it('cancelled bookings stay listed with their status; a removed booking leaves the listing and sends no event', async () => {
    const api = bookings(served)
    const target = ownBookings(served).find((booking) => booking.status !== 'cancelled')!
    api.cancel(target.id)
    const after = await walk(served, token, 'limit=500')
    expect(after.seen.find((booking) => booking.id === target.id)?.status).toBe('cancelled')
    const events = served.app.sandbox.ctx.events.log.length
    const removed = await served.admin('/_sandbox/bookings', {action: 'remove', booking_id: target.id})
    expect(removed.status).toBe(201)
    expect(removed.body).toEqual({events: [], booking_id: target.id})
    expect(served.app.sandbox.ctx.events.log).toHaveLength(events)
    const later = await walk(served, token, 'limit=500')
    expect(later.seen.some((booking) => booking.id === target.id)).toBe(false)
    expect((await served.get(`/bookings/${target.id}/lock-codes`, token)).status).toBe(404)
  })
})

describe('incremental sync: next_updated_since under a concurrent writer', () => {
  // Contract, GET /bookings: "read every page, keep next_updated_since of the last page and pass it as
  // updated_since next time; upsert by booking id" and the promise the client relies on: nothing changed
  // is ever missed, even while it pages.
  let served: Served
  let token: string
  beforeAll(async () => {
    served = await serve({bookings: 2000})
    token = await served.token()
  })
  afterAll(() => served.close())

  const promise = async (served: Served, token: string) => {
    const api = bookings(served)
    const held = new Map<string, Record<string, unknown>>()
    const upsert = (seen: Array<Record<string, unknown>>) => {
      for (const booking of seen) held.set(booking.id as string, booking)
    }
    let draw = 7
    const next = () => (draw = (draw * 48271) % 2147483647)
    /** Between pages: several changes in the same millisecond (ties of updated_at), both ends of the order. */
    const writer = () => {
      const all = ownBookings(served)
      for (let i = 0; i < 6; i++) {
        const target = all[next() % all.length] as BookingRecord
        const kind = next() % 4
        if (kind === 0) api.change(target.id, {occupancy: {adults: (target.occupancy.adults % 5) + 1}})
        else if (kind === 1) api.change(target.id, {guest: {email: `sync-${next()}@example.com`}})
        else if (kind === 2) api.cancel(target.id)
        else api.create({property_id: target.property_id})
      }
    }
    let since = ''
    for (let round = 0; round < 4; round++) {
      const walked = await walk(served, token, `limit=97${since ? `&updated_since=${encodeURIComponent(since)}` : ''}`, writer)
      upsert(walked.seen)
      since = walked.nextUpdatedSince
      expect(walked.pages).toBeGreaterThan(round === 0 ? 10 : 0)
    }
    // one last walk with nobody writing: the client now holds exactly what the service holds
    const last = await walk(served, token, `limit=500&updated_since=${encodeURIComponent(since)}`)
    upsert(last.seen)
    const truth = ownBookings(served)
    expect(held.size).toBe(truth.length)
    for (const booking of truth) {
      const mine = held.get(booking.id)
      expect(mine?.updated_at, booking.id).toBe(new Date(booking.updated_at).toISOString())
      expect(mine?.status).toBe(booking.status)
      expect(mine?.occupancy).toEqual(booking.occupancy)
      expect((mine?.guest as {email: string}).email).toBe(booking.guest.email)
    }
  }

  it('a client that reads every page and passes next_updated_since back never misses a change made between its pages', async () => {
    await promise(served, token)
  })

  it('... also when every change falls on the same millisecond (ties of updated_at on both sides of the cursor)', async () => {
    // a clock that barely moves: every change made here gets the same updated_at
    const frozen = await serve({bookings: 2000, speed: 1e-9})
    try {
      await promise(frozen, await frozen.token())
      const stamps = new Set(ownBookings(frozen).filter((booking) => booking.updated_at >= frozen.app.sandbox.clock.now()).map((booking) => booking.updated_at))
      expect(stamps.size).toBe(1)
    } finally {
      await frozen.close()
    }
  })

  it('next_updated_since is the instant the walk began, the same on every page of the walk; updated_since is inclusive', async () => {
    const begin = served.app.sandbox.clock.now()
    const pages: string[] = []
    const walked = await walk(served, token, 'limit=300', () => {
      pages.push('page')
    })
    expect(Date.parse(walked.nextUpdatedSince)).toBeGreaterThanOrEqual(begin)
    const first = await served.get('/bookings?limit=1', token)
    const second = await served.get(`/bookings?limit=1&cursor=${first.body.next_cursor}`, token)
    expect(second.body.next_updated_since).toBe(first.body.next_updated_since)
    // a booking changed exactly at the instant passed as updated_since comes back
    const changed = bookings(served).change(ownBookings(served)[0]!.id, {channel_reference: 'TIE-1'}).booking
    const at = new Date(changed.updated_at).toISOString()
    const again = await walk(served, token, `limit=500&updated_since=${encodeURIComponent(at)}`)
    expect(again.seen.map((booking) => booking.id)).toContain(changed.id)
    expect(again.seen.every((booking) => booking.updated_at >= at)).toBe(true)
  })
})

describe('booking changes raise the App Events of the contract\'s Events table', () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({bookings: 300})
  })
  afterAll(() => served.close())

  const eventsSince = (count: number) => served.app.sandbox.ctx.events.log.slice(count).map((event) => ({type: event.type, data: event.data, connection_id: event.connection_id}))

  it('booking.created with data {object: booking, id}; a booking arriving already cancelled sends only booking.created', async () => {
    await served.token()
    const connection = served.app.sandbox.ctx.world.connections[0]!.id
    const before = served.app.sandbox.ctx.events.log.length
    const made = await served.admin('/_sandbox/bookings', {action: 'create', check_in: '2027-02-01', check_out: '2027-02-04', guest: {name: 'Ana Ruiz'}})
    expect(made.status).toBe(201)
    expect(made.body.events).toEqual([{id: expect.any(String), type: 'booking.created'}])
    expect(eventsSince(before)).toEqual([{type: 'booking.created', data: {object: 'booking', id: made.body.booking_id}, connection_id: connection}])
    const mark = served.app.sandbox.ctx.events.log.length
    const cancelled = bookings(served).create({status: 'cancelled'})
    expect(eventsSince(mark)).toEqual([{type: 'booking.created', data: {object: 'booking', id: cancelled.booking.id}, connection_id: connection}])
  })

  it('booking.updated only when what GET /bookings returns changed; an identical rewrite sends nothing and keeps updated_at', async () => {
    const token = await served.token()
    const api = bookings(served)
    const target = api.create({check_in: '2027-03-01', check_out: '2027-03-05'}).booking
    const mark = served.app.sandbox.ctx.events.log.length
    const moved = api.change(target.id, {check_in: '2027-03-02', check_out: '2027-03-06'})
    expect(moved.events.map((event) => event.type)).toEqual(['booking.updated'])
    expect(eventsSince(mark)[0]?.data).toEqual({object: 'booking', id: target.id})
    const same = api.change(target.id, {check_in: '2027-03-02', check_out: '2027-03-06'})
    expect(same.events).toEqual([])
    expect(same.booking.updated_at).toBe(moved.booking.updated_at)
    const listed = (await served.get(`/bookings?limit=500&updated_since=${encodeURIComponent(new Date(moved.booking.updated_at).toISOString())}`, token)).body.data
    expect(listed.find((booking: {id: string}) => booking.id === target.id)).toMatchObject({check_in: '2027-03-02', check_out: '2027-03-06'})
  })

  it('guest contact changes send booking.updated only with guests.read, amount changes only with prices.read', async () => {
    const api = bookings(served)
    const target = api.create({}).booking
    await served.token({permissions: ['bookings.read']})
    expect(api.change(target.id, {guest: {email: 'new@example.com'}}).events).toEqual([])
    expect(api.change(target.id, {price: {paid: 1}}).events).toEqual([])
    // One more child than the booking was made with: a value it already had would be an identical rewrite.
    expect(api.change(target.id, {occupancy: {children: target.occupancy.children + 1}}).events.map((event) => event.type)).toEqual(['booking.updated'])
    await served.token({permissions: ['bookings.read', 'guests.read']})
    expect(api.change(target.id, {guest: {phone: '+15550000001'}}).events.map((event) => event.type)).toEqual(['booking.updated'])
    expect(api.change(target.id, {price: {paid: 2}}).events).toEqual([])
    await served.token({permissions: ['bookings.read', 'prices.read']})
    expect(api.change(target.id, {price: {paid: 3}}).events.map((event) => event.type)).toEqual(['booking.updated'])
  })

  it('booking.cancelled on cancellation (once); reinstatement after cancellation is booking.updated; removal sends none', async () => {
    await served.token()
    const api = bookings(served)
    const target = api.create({}).booking
    expect(api.cancel(target.id).events.map((event) => event.type)).toEqual(['booking.cancelled'])
    expect(api.cancel(target.id).events).toEqual([])
    expect(api.change(target.id, {status: 'confirmed'}).events.map((event) => event.type)).toEqual(['booking.updated'])
    expect(api.remove(target.id).events).toEqual([])
  })

  it('delivery scope: only connections holding bookings.read whose Property Access covers the booking\'s Property', async () => {
    const api = bookings(served)
    const world = served.app.sandbox.ctx.world
    const own = world.properties.filter((property) => property.account_id === firstAccount(served))
    await served.token({property_ids: [own[0]!.id]})
    expect(api.create({property_id: own[1]!.id}).events).toEqual([])
    expect(api.create({property_id: own[0]!.id}).events).toHaveLength(1)
    await served.token({permissions: PERMISSIONS.filter((permission) => permission !== 'bookings.read')})
    expect(api.create({property_id: own[0]!.id}).events).toEqual([])
    await served.admin('/_sandbox/owner', {action: 'revoke'})
    expect(api.create({property_id: own[0]!.id}).events).toEqual([])
  })

  it('the triggers booking_created, booking_changed, booking_cancelled, booking_removed answer the events and the booking id; bad bodies answer 422, unknown bookings 404', async () => {
    await served.token()
    const {triggers} = bookings(served)
    expect(Object.keys(triggers).sort()).toEqual(['booking_cancelled', 'booking_changed', 'booking_created', 'booking_removed'])
    const created = triggers.booking_created!({sales_channel: 'airbnb'})
    expect(created.events.map((event) => event.type)).toEqual(['booking.created'])
    const id = created.booking_id as string
    expect(bookings(served).find(id)?.sales_channel).toEqual({code: 'airbnb', name: 'Airbnb'})
    expect(triggers.booking_changed!({booking_id: id}).events.map((event) => event.type)).toEqual(['booking.updated'])
    expect(triggers.booking_cancelled!({booking_id: id})).toMatchObject({booking_id: id, events: [{type: 'booking.cancelled'}]})
    expect(triggers.booking_removed!({booking_id: id})).toEqual({booking_id: id, events: []})
    // without booking_id a booking of the first account is picked
    const picked = triggers.booking_cancelled!({})
    expect(accountOf(served, bookings(served).find(picked.booking_id as string)!.property_id)).toBe(firstAccount(served))
    for (const body of [{check_in: '2027-01-05', check_out: null}, {check_in: '2027-01-05', check_out: '2027-01-05'}, {status: 'gone'}, {unknown_field: 1}, {property_id: 'nope'}, 'text']) {
      const answer = await served.admin('/_sandbox/bookings', {action: 'create', ...(typeof body === 'string' ? {guest: body} : body)})
      expect(answer.status, JSON.stringify(body)).toBe(422)
      expect(answer.body.error.code).toBe('validation_failed')
    }
    const unknown = await served.admin('/_sandbox/bookings', {action: 'change', booking_id: '00000000-0000-4000-8000-000000000000'})
    expect(unknown.status).toBe(404)
    expect((await served.admin('/_sandbox/bookings', {action: 'explode'})).status).toBe(422)
  })
})

describe('GET /bookings/{booking_id}/lock-codes', () => {
  let served: Served
  let token: string
  const seed = 1
  beforeAll(async () => {
    served = await serve({bookings: 3000})
    token = await served.token()
  })
  afterAll(() => served.close())

  const dated = () => ownBookings(served).filter((booking) => booking.check_in !== null && booking.status !== 'cancelled')
  const withLocks = (test: (booking: BookingRecord) => boolean) => dated().find(test)!

  it('a key box gives its static_code with valid_from and valid_until null, the same for every stay', async () => {
    const boxed = dated().filter((booking) => locksOf(seed, booking.property_id).some((lock) => lock.type === 'key_box'))
    const a = boxed[0]!
    const b = boxed.find((booking) => booking.property_id === a.property_id && booking.id !== a.id)!
    const read = async (id: string) => (await served.get(`/bookings/${id}/lock-codes`, token)).body
    const first = await read(a.id)
    expect(LockCodesAnswerSchema.safeParse(first).success).toBe(true)
    const box = first.data.find((entry: {lock_type: string}) => entry.lock_type === 'key_box')
    expect(box).toMatchObject({lock_code: null, status: null, valid_from: null, valid_until: null})
    expect(box.static_code).toMatch(/^\d{4}$/)
    expect((await read(b.id)).data.find((entry: {lock_type: string}) => entry.lock_type === 'key_box').static_code).toBe(box.static_code)
  })

  it('a smart lock gives the newest lock_code that is not revoked, valid over the stay; a pending code says pending', async () => {
    // a booking whose newest code was revoked and an older one still holds
    const revokedNewest = withLocks((booking) =>
      locksOf(seed, booking.property_id).some((lock) => {
        const codes = codeHistory(seed, booking.id, lock)
        return codes.length >= 2 && codes.at(-1)!.revoked && codes.some((code) => !code.revoked)
      }),
    )
    const answer = await served.get(`/bookings/${revokedNewest.id}/lock-codes`, token)
    expect(answer.status).toBe(200)
    for (const lock of locksOf(seed, revokedNewest.property_id).filter((candidate) => candidate.type === 'smart_lock')) {
      const expected = codeHistory(seed, revokedNewest.id, lock).findLast((code) => !code.revoked)
      const entry = answer.body.data.find((candidate: {lock_id: string}) => candidate.lock_id === lock.id)
      if (expected === undefined) expect(entry).toBeUndefined()
      else {
        expect(entry).toMatchObject({lock_type: 'smart_lock', static_code: null, lock_code: expected.code, status: expected.pending ? 'pending' : 'active'})
        expect(Date.parse(entry.valid_from)).toBeLessThan(Date.parse(entry.valid_until))
        expect(entry.valid_from.slice(0, 10) <= revokedNewest.check_in!).toBe(true)
      }
    }
    const pending = withLocks((booking) => locksOf(seed, booking.property_id).some((lock) => codeHistory(seed, booking.id, lock).at(-1)?.pending === true && !codeHistory(seed, booking.id, lock).at(-1)?.revoked))
    const pendingAnswer = await served.get(`/bookings/${pending.id}/lock-codes`, token)
    expect(pendingAnswer.body.data.some((entry: {status: string}) => entry.status === 'pending')).toBe(true)
  })

  it('a smart lock without a code for the booking is left out', async () => {
    const noCode = withLocks((booking) => {
      const locks = locksOf(seed, booking.property_id)
      return locks.some((lock) => lock.type === 'smart_lock' && codeHistory(seed, booking.id, lock).every((code) => code.revoked))
    })
    const answer = await served.get(`/bookings/${noCode.id}/lock-codes`, token)
    const ids = answer.body.data.map((entry: {lock_id: string}) => entry.lock_id)
    for (const lock of locksOf(seed, noCode.property_id)) {
      if (lock.type === 'smart_lock' && codeHistory(seed, noCode.id, lock).every((code) => code.revoked)) expect(ids).not.toContain(lock.id)
    }
  })

  it('a cancelled booking answers an empty list; a booking without stay dates answers 404 not_found', async () => {
    const cancelled = ownBookings(served).find((booking) => booking.status === 'cancelled' && booking.check_in !== null && locksOf(seed, booking.property_id).length > 0)!
    expect(await served.get(`/bookings/${cancelled.id}/lock-codes`, token)).toEqual({status: 200, body: {data: []}})
    const undated = ownBookings(served).find((booking) => booking.check_in === null)!
    const answer = await served.get(`/bookings/${undated.id}/lock-codes`, token)
    expect(answer.status).toBe(404)
    expect(answer.body.error.code).toBe('not_found')
  })

  it('a booking outside the Connection Scope or unknown answers 404; lock_codes.read is required', async () => {
    const foreign = bookings(served).list().find((booking) => accountOf(served, booking.property_id) !== firstAccount(served))!
    expect((await served.get(`/bookings/${foreign.id}/lock-codes`, token)).status).toBe(404)
    expect((await served.get('/bookings/00000000-0000-4000-8000-000000000000/lock-codes', token)).status).toBe(404)
    const limited = await served.token({permissions: ['bookings.read']})
    const refused = await served.get(`/bookings/${dated()[0]!.id}/lock-codes`, limited)
    expect(refused.status).toBe(403)
    expect(refused.body.error.code).toBe('forbidden_permission')
  })
})

describe('scale and persistence', () => {
  it('100,000 bookings start and are served in pages of 500', async () => {
    const served = await serve({bookings: 100_000})
    try {
      const token = await served.token()
      const answer = await served.get('/bookings?limit=500', token)
      expect(answer.status).toBe(200)
      expect(answer.body.data).toHaveLength(500)
      expect(bookings(served).list()).toHaveLength(100_000)
    } finally {
      await served.close()
    }
  }, 60_000)

  it('--state keeps bookings created, changed and removed; the seeded ones are generated again', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'pms-bookings-')), 'state.json')
    const first = await serve({bookings: 500, statePath})
    const api = bookings(first)
    const [changed, removed] = ownBookings(first)
    api.change(changed!.id, {occupancy: {adults: 9}})
    api.remove(removed!.id)
    const made = api.create({channel_reference: 'KEEP-1'}).booking
    const before = api.list().map((booking) => ({...booking}))
    await first.close()
    const second = await serve({bookings: 10, statePath})
    try {
      expect(bookings(second).list()).toEqual(before)
      expect(bookings(second).find(made.id)?.channel_reference).toBe('KEEP-1')
      expect(bookings(second).find(removed!.id)).toBeUndefined()
      // stamps only grow across a restart
      const next = bookings(second).change(made.id, {channel_reference: 'KEEP-2'}).booking
      expect(next.updated_at).toBeGreaterThanOrEqual(made.updated_at)
      // a booking made after the restart is a new one, never one made before it
      const count = bookings(second).list().length
      expect(bookings(second).create({}).booking.id).not.toBe(made.id)
      expect(bookings(second).list()).toHaveLength(count + 1)
    } finally {
      await second.close()
    }
  })
})

describe('Property Guide over HTTP', () => {
  it('an empty list is null, never [] (contract: "An empty field is null, never omitted")', async () => {
    const served = await serve({bookings: 0})
    try {
      const token = await served.token()
      const own = served.app.sandbox.ctx.world.properties.filter((property) => property.account_id === firstAccount(served))
      let nullList = false
      for (const property of own.slice(0, 40)) {
        const guide = (await served.get(`/properties/${property.id}/guide`, token)).body
        for (const value of Object.values(guide)) expect(value).not.toEqual([])
        if (guide.amenities === null || guide.knowledge === null) nullList = true
      }
      expect(nullList).toBe(true)
    } finally {
      await served.close()
    }
  })
})
