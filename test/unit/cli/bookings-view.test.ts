import {describe, expect, it} from 'vitest'
import {bookingColumns} from '../../../src/cli/views/bookings.js'
import type {BookingFields} from '../../../src/contract/booking-fields.js'

const total = bookingColumns.find((column) => column.header === 'total')!

describe('bookings list: the total', () => {
  it("prints the currency's minor digits: 727.60 EUR, 1619 JPY, and no digit given is dropped", () => {
    expect(total.value({total: 727.6, currency: 'EUR'} as BookingFields)).toBe('727.60 EUR')
    expect(total.value({total: 1619, currency: 'JPY'} as BookingFields)).toBe('1619 JPY')
    expect(total.value({total: 671.05, currency: 'JPY'} as BookingFields)).toBe('671.05 JPY')
    expect(total.value({total: 727.6, currency: null} as BookingFields)).toBe('727.60')
  })
})
