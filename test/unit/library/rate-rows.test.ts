/**
 * The rows of `planRates` are the contract's writable fields (RestrictionValues: rate, min_stay,
 * closed_to_arrival, closed_to_departure, availability: "true opens, false closes the night for
 * sale") with a Property and nights. A key that names no field is refused, never dropped: dropped,
 * `{rate: 121, closed: true}` would change the rate and leave the night for sale without a word.
 */
import {describe, expect, it} from 'vitest'
import type {PmsClient} from '../../../src/client/index.js'
import type {Property} from '../../../src/contract/index.js'
import {planRates, type RateRow} from '../../../src/library/rates.js'
import {CsvInvalidError} from '../../../src/rates/errors.js'
import {batchRequest} from '../../../src/rates/planner.js'
import {A, NOW} from '../rates/helpers.js'

/** Only the Property list is read while planning. */
const client = {
  properties: {
    async *list() {
      yield {id: A, name: 'Sea View', currency: 'EUR', timezone: 'Europe/Paris', pricing_modifiers: []} satisfies Property
    },
  },
} as unknown as PmsClient

describe('the rows of planRates', () => {
  it('refuse a key that is not a field, naming the row and the key (closed is not one: availability is)', async () => {
    const rows = [
      {property_id: A, from: '2026-12-01', to: '2026-12-02', rate: 120},
      {property_id: A, from: '2026-12-03', to: '2026-12-03', rate: 121, closed: true},
    ] as unknown as RateRow[]
    const error = (await planRates(client, rows, NOW).catch((e: unknown) => e)) as CsvInvalidError
    expect(error).toBeInstanceOf(CsvInvalidError)
    expect(error.message).toContain('rows[1]: unknown key "closed"')
    expect(error.message).toContain('to close the nights for sale write availability: false')
    expect(error.message).not.toContain('rows[0]')
  })

  it('take availability: false, which closes the nights for sale, beside a rate', async () => {
    const planned = await planRates(client, [{property_id: A, from: '2026-12-03', to: '2026-12-04', rate: 121, availability: false}], NOW)
    expect(batchRequest(planned.plan, 0).entries).toEqual([{property_id: A, from: '2026-12-03', to: '2026-12-04', values: {rate: 121, availability: false}}])
  })

  it('take every field of the contract', async () => {
    const row: RateRow = {property_id: A, from: '2026-12-05', to: '2026-12-05', rate: '99.50', min_stay: 2, closed_to_arrival: true, closed_to_departure: false, availability: true}
    const planned = await planRates(client, [row], NOW)
    expect(batchRequest(planned.plan, 0).entries[0]!.values).toEqual({rate: 99.5, min_stay: 2, closed_to_arrival: true, closed_to_departure: false, availability: true})
  })
})
