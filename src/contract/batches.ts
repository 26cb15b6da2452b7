import {z} from 'zod'
import {parseDay} from './days.js'
import {BATCH_STATUSES, RESTRICTION_FIELDS, UNWRITABLE_REASONS} from './error-codes.js'
import {MAX_CHANGES_PER_BATCH, MAX_ENTRIES_PER_BATCH, MAX_PROPERTIES_PER_CALL, MIN_ENTRIES_PER_BATCH} from './limits.js'
import {component, count, isoDate, isoDateTime, lenient, openEnum, uuid} from './registry.js'
import {RestrictionValuesSchema} from './restrictions.js'

/** Nights from `from` to `to`, both inclusive (`YYYY-MM-DD`); 0 when `to` is before `from` or either is no date. */
export function nightsInRange(from: string, to: string): number {
  const first = parseDay(from)
  const last = parseDay(to)
  if (typeof first !== 'number' || typeof last !== 'number' || last < first) return 0
  return last - first + 1
}

export const RestrictionBatchEntrySchema = component(
  'RestrictionBatchEntry',
  'Values for one Property over a run of nights, `from` and `to` both inclusive.',
  z
    .object({
      property_id: uuid(),
      from: isoDate().describe('First night, inclusive.'),
      to: isoDate().describe('Last night, inclusive.'),
      values: RestrictionValuesSchema,
    })
    .refine((entry) => entry.from <= entry.to, {message: 'to must not be before from', path: ['to']}),
)
export type RestrictionBatchEntry = z.infer<typeof RestrictionBatchEntrySchema>

/** Date x field changes an entry asks for: the unit of the per-batch limit. */
export function entryChangeCount(entry: RestrictionBatchEntry): number {
  const fields = Object.values(entry.values).filter((value) => value !== undefined).length
  return nightsInRange(entry.from, entry.to) * fields
}

export const RestrictionBatchRequestSchema = component(
  'RestrictionBatchRequest',
  `A write over many Properties and nights: 1 to ${MAX_ENTRIES_PER_BATCH} entries, at most ${MAX_PROPERTIES_PER_CALL} distinct Properties and ${MAX_CHANGES_PER_BATCH} date x field changes. With dry_run true nothing is stored or sent.`,
  z
    .object({
      entries: z.array(RestrictionBatchEntrySchema).min(MIN_ENTRIES_PER_BATCH).max(MAX_ENTRIES_PER_BATCH),
      dry_run: z.boolean().optional(),
    })
    .superRefine((request, ctx) => {
      const properties = new Set(request.entries.map((entry) => entry.property_id))
      if (properties.size > MAX_PROPERTIES_PER_CALL) {
        ctx.addIssue({
          code: 'too_big',
          origin: 'array',
          maximum: MAX_PROPERTIES_PER_CALL,
          inclusive: true,
          path: ['entries'],
          message: `a batch covers at most ${MAX_PROPERTIES_PER_CALL} distinct Properties (got ${properties.size})`,
        })
      }
      const changes = request.entries.reduce((sum, entry) => sum + entryChangeCount(entry), 0)
      if (changes > MAX_CHANGES_PER_BATCH) {
        ctx.addIssue({
          code: 'too_big',
          origin: 'array',
          maximum: MAX_CHANGES_PER_BATCH,
          inclusive: true,
          path: ['entries'],
          message: `a batch holds at most ${MAX_CHANGES_PER_BATCH} date x field changes (got ${changes})`,
        })
      }
    }),
)
export type RestrictionBatchRequest = z.infer<typeof RestrictionBatchRequestSchema>

const batchStatus = () =>
  openEnum(BATCH_STATUSES).describe(`Batch status; known values: ${BATCH_STATUSES.join(', ')}. Version 1 may add values.`)

export const RestrictionBatchAcceptedSchema = component(
  'RestrictionBatchAccepted',
  'Answer 202 of a stored batch (status `queued`).',
  z.looseObject({
    id: uuid(),
    status: batchStatus(),
  }),
)
export type RestrictionBatchAccepted = z.infer<typeof RestrictionBatchAcceptedSchema>

const fieldName = () => openEnum(RESTRICTION_FIELDS)
const reason = () => openEnum(UNWRITABLE_REASONS)
const restrictionValue = () => z.union([z.number(), z.boolean()]).nullable()

export const PreviewChangeSchema = component(
  'PreviewChange',
  'A change a batch would send; `current` is null when unset or not in the calendar.',
  z.looseObject({
    date: isoDate(),
    field: fieldName(),
    current: restrictionValue(),
    new: restrictionValue(),
  }),
)
export type PreviewChange = z.infer<typeof PreviewChangeSchema>

export const PreviewRefusedFieldSchema = component(
  'PreviewRefusedField',
  'A field refused over a run of nights (`from`, `to` inclusive) with the reason.',
  z.looseObject({
    field: fieldName(),
    reason: reason(),
    from: isoDate(),
    to: isoDate(),
  }),
)
export type PreviewRefusedField = z.infer<typeof PreviewRefusedFieldSchema>

export const PreviewCountsSchema = component(
  'PreviewCounts',
  'Counts of date x field changes of a dry run.',
  z.looseObject({
    submitted: count(),
    changed: count(),
    unchanged: count(),
    refused: count(),
  }),
)
export type PreviewCounts = z.infer<typeof PreviewCountsSchema>

export const PreviewPropertySchema = component(
  'PreviewProperty',
  'What a batch would do on one Property; `changed` lists every change that would be sent, in date order.',
  z.looseObject({
    property_id: uuid(),
    changes: PreviewCountsSchema,
    changed: z.array(PreviewChangeSchema),
    refused_fields: z.array(PreviewRefusedFieldSchema),
  }),
)
export type PreviewProperty = z.infer<typeof PreviewPropertySchema>

export const RestrictionBatchPreviewSchema = component(
  'RestrictionBatchPreview',
  'Answer 200 of a dry run: nothing stored or sent.',
  z.looseObject({
    dry_run: z.literal(true),
    properties: z.array(PreviewPropertySchema),
  }),
)
export type RestrictionBatchPreview = z.infer<typeof RestrictionBatchPreviewSchema>

/** docs/contract-gaps.md row 2: the counts of a stored batch; `pending` makes a batch in flight add up. */
export const BatchReportCountsSchema = component(
  'BatchReportCounts',
  'Counts of date x field changes of a stored batch; submitted = pending + applied + unchanged + superseded + refused + failed + cancelled.',
  z.looseObject({
    submitted: count(),
    pending: count(),
    applied: count(),
    unchanged: count(),
    superseded: count(),
    refused: count(),
    failed: count(),
    cancelled: count(),
  }),
)
export type BatchReportCounts = z.infer<typeof BatchReportCountsSchema>

export const BatchFailureSchema = component(
  'BatchFailure',
  'Changes of one field that failed over a run of nights (`from`, `to` inclusive).',
  z.looseObject({
    field: fieldName(),
    code: openEnum(['sales_channel_unavailable']).describe('Failure code; known: sales_channel_unavailable. Version 1 may add codes.'),
    from: isoDate(),
    to: isoDate(),
  }),
)
export type BatchFailure = z.infer<typeof BatchFailureSchema>

export const BatchReportPropertySchema = component(
  'BatchReportProperty',
  'Outcome of a stored batch on one Property.',
  z.looseObject({
    property_id: uuid(),
    status: batchStatus(),
    changes: BatchReportCountsSchema,
    refused_fields: z.array(PreviewRefusedFieldSchema),
    failures: z.array(BatchFailureSchema),
  }),
)
export type BatchReportProperty = z.infer<typeof BatchReportPropertySchema>

/**
 * docs/contract-gaps.md rows 2 and 10. The contract names a batch's `id` and `status` (and its
 * status values); the report's structure and field names are "not shown", so the rest is read
 * liberally: a report without them still tells its status, and `batches wait` still ends.
 */
export const BatchReportSchema = component(
  'BatchReport',
  'Outcome report of a stored batch (kept 30 days); `completed_at` is null until the status is final. The contract names only `id` and `status`; pms reads the rest when present and of this shape.',
  z.looseObject({
    id: uuid(),
    status: batchStatus(),
    created_at: lenient(isoDateTime()),
    updated_at: lenient(isoDateTime()),
    completed_at: lenient(isoDateTime().nullable()),
    changes: lenient(BatchReportCountsSchema),
    properties: lenient(z.array(BatchReportPropertySchema)),
  }),
)
export type BatchReport = z.infer<typeof BatchReportSchema>
