import {cellDay, cellField, untagCell} from '../../contract/cells.js'
import {UNWRITABLE_REASONS} from '../../contract/error-codes.js'
import type {BatchReport, BatchReportProperty} from '../../contract/batches.js'
import {FAILURE_CODE, statusOf, sumCounts} from './engine.js'
import type {PropertyOutcome, StoredBatch} from './engine.js'
import {toRuns} from './runs.js'

const iso = (ms: number) => new Date(ms).toISOString()

function propertyReport(outcome: PropertyOutcome): BatchReportProperty {
  const refused = [...outcome.refused].sort((a, b) => a - b)
  const failed = [...outcome.failed].sort((a, b) => a - b)
  return {
    property_id: outcome.propertyId,
    status: statusOf(outcome.counts, outcome.started),
    changes: {...outcome.counts},
    refused_fields: toRuns(
      refused.map(untagCell).map(({key, tag}) => ({day: cellDay(key), field: cellField(key), tag: UNWRITABLE_REASONS[tag]!})),
    ).map((run) => ({field: run.field, reason: run.tag, from: run.from, to: run.to})),
    failures: toRuns(failed.map((key) => ({day: cellDay(key), field: cellField(key), tag: FAILURE_CODE}))).map((run) => ({
      field: run.field,
      code: run.tag,
      from: run.from,
      to: run.to,
    })),
  }
}

/** A report as the sandbox writes it: every field of docs/contract-gaps.md row 2 present. */
export type ServedBatchReport = BatchReport & Required<Pick<BatchReport, 'created_at' | 'updated_at' | 'completed_at' | 'changes' | 'properties'>>

/** docs/contract-gaps.md row 2. */
export function batchReport(batch: StoredBatch): ServedBatchReport {
  return {
    id: batch.id,
    status: batch.status,
    created_at: iso(batch.createdAt),
    updated_at: iso(batch.updatedAt),
    completed_at: batch.completedAt === null ? null : iso(batch.completedAt),
    changes: sumCounts(batch.properties),
    properties: batch.properties.map(propertyReport),
  }
}
