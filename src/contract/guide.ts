import {z} from 'zod'
import {component, nullableString, uuid} from './registry.js'

/** Every object and list of the guide may itself be null when empty (the contract: "never omitted"). */
const nullableObject = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape).nullable()
const nullableList = <T extends z.ZodType>(item: T) => z.array(item).nullable()

export const GuideRoomSchema = component('GuideRoom', 'A room of the Property.', z.looseObject({name: nullableString(), description: nullableString()}))
export const GuideCustomShortcodeSchema = component(
  'GuideCustomShortcode',
  'A custom shortcode of the host and its value.',
  z.looseObject({code: z.string(), value: nullableString()}),
)
export const GuideKnowledgeSchema = component(
  'GuideKnowledge',
  'An active Knowledge entry (suggested or rejected entries are never returned).',
  z.looseObject({id: z.string(), topic: nullableString(), content: nullableString()}),
)

/** docs/contract-gaps.md rows 4 and 8. */
export const PropertyGuideSchema = component(
  'PropertyGuide',
  'Practical information of a Property. Every field is present; an empty one is null.',
  z.looseObject({
    property_id: uuid(),
    address: nullableObject({
      line1: nullableString(),
      line2: nullableString(),
      city: nullableString(),
      postal_code: nullableString(),
      region: nullableString(),
      country: nullableString(),
    }),
    coordinates: nullableObject({latitude: z.number(), longitude: z.number()}),
    contact: nullableObject({name: nullableString(), phone: nullableString(), email: nullableString()}),
    check_in_time: nullableString().describe('Local time `HH:MM`, for example `15:00`.'),
    check_out_time: nullableString().describe('Local time `HH:MM`, for example `11:00`.'),
    wifi: nullableObject({network: nullableString(), password: nullableString()}),
    rooms: nullableList(GuideRoomSchema),
    amenities: nullableList(z.string()),
    website_texts: nullableObject({headline: nullableString(), summary: nullableString(), description: nullableString()}),
    welcome_booklet_url: nullableString(),
    custom_shortcodes: nullableList(GuideCustomShortcodeSchema),
    knowledge: nullableList(GuideKnowledgeSchema),
  }),
)
export type PropertyGuide = z.infer<typeof PropertyGuideSchema>
