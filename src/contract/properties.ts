import {z} from 'zod'
import {component, uuid} from './registry.js'
import {nextCursor} from './common.js'

export const PricingModifierSchema = component(
  'PricingModifier',
  'A percentage applied on top of the base rate on one Sales Channel (15 means +15 %). Channels without a modifier are omitted.',
  z.looseObject({
    sales_channel: z.string().describe('`website` for the direct website, else the shortcode of the Sales Channel.'),
    name: z.string().describe('Channel display name.'),
    percent: z.number(),
  }),
)
export type PricingModifier = z.infer<typeof PricingModifierSchema>

export const PropertySchema = component(
  'Property',
  'A rentable unit with its currency and time zone.',
  z.looseObject({
    id: uuid(),
    name: z.string(),
    currency: z.string().describe('ISO 4217 code of every amount of the Property.'),
    timezone: z.string().describe('IANA time zone in which the Property dates are read.'),
    pricing_modifiers: z.array(PricingModifierSchema),
  }),
)
export type Property = z.infer<typeof PropertySchema>

export const PropertiesPageSchema = component(
  'PropertiesPage',
  'A page of Properties ordered by `id`.',
  z.looseObject({
    data: z.array(PropertySchema),
    next_cursor: nextCursor(),
  }),
)
export type PropertiesPage = z.infer<typeof PropertiesPageSchema>
