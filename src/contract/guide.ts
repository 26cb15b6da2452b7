import {z} from 'zod'
import {component, lenient, nullableString, uuid} from './registry.js'

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

/**
 * docs/contract-gaps.md rows 4 and 8: the shape the sandbox serves. The contract shows no field
 * names of the guide, so every field is read liberally: one that is missing or of another shape is
 * left out of what is shown, never an error.
 */
export const PropertyGuideSchema = component(
  'PropertyGuide',
  'Practical information of a Property. Every field is present; an empty one is null. The contract names none of these fields: pms shows each one when present and of this shape.',
  z.looseObject({
    property_id: lenient(uuid()),
    address: lenient(
      nullableObject({
        line1: nullableString(),
        line2: nullableString(),
        city: nullableString(),
        postal_code: nullableString(),
        region: nullableString(),
        country: nullableString(),
      }),
    ),
    coordinates: lenient(nullableObject({latitude: z.number(), longitude: z.number()})),
    contact: lenient(nullableObject({name: nullableString(), phone: nullableString(), email: nullableString()})),
    check_in_time: lenient(nullableString().describe('Local time `HH:MM`, for example `15:00`.')),
    check_out_time: lenient(nullableString().describe('Local time `HH:MM`, for example `11:00`.')),
    wifi: lenient(nullableObject({network: nullableString(), password: nullableString()})),
    rooms: lenient(nullableList(GuideRoomSchema)),
    amenities: lenient(nullableList(z.string())),
    website_texts: lenient(nullableObject({headline: nullableString(), summary: nullableString(), description: nullableString()})),
    welcome_booklet_url: lenient(nullableString()),
    custom_shortcodes: lenient(nullableList(GuideCustomShortcodeSchema)),
    knowledge: lenient(nullableList(GuideKnowledgeSchema)),
  }),
)
export type PropertyGuide = z.infer<typeof PropertyGuideSchema>
