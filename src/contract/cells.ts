/**
 * A cell is one night x field of a Property: the unit in which the contract counts a batch ("date x
 * field changes") and in which a batch's outcome is told. A cell key packs the night's day number
 * (see days.ts) and the field's index in RESTRICTION_FIELDS into one integer, night * 8 + field, so
 * that sorting keys sorts by night, then by the contract's field order, and a Map of cells needs no
 * string keys. 8 slots leave room for fields a later version may add without changing stored keys.
 */
const FIELD_SLOTS = 8
/** Room for a tag of up to four values (the three unwritable reasons) beside a key. */
const TAG_SLOTS = 4

export const cellKey = (day: number, field: number): number => day * FIELD_SLOTS + field
export const cellDay = (key: number): number => Math.floor(key / FIELD_SLOTS)
export const cellField = (key: number): number => key - cellDay(key) * FIELD_SLOTS

/** A cell key with a small tag (an index below 4), as one integer that sorts like the key. */
export const tagCell = (key: number, tag: number): number => key * TAG_SLOTS + tag
export const untagCell = (packed: number): {key: number; tag: number} => {
  const key = Math.floor(packed / TAG_SLOTS)
  return {key, tag: packed - key * TAG_SLOTS}
}
