export {BatchEngine, FAILURE_CODE, OUTAGE_RETRY_DELAYS_MS, SEND_LATENCY_MS, statusOf, sumCounts} from './engine.js'
export type {BatchEngineOptions, BatchEngineState, ChannelUpdate, Counts, PropertyOutcome, StoredBatch, UnsentRef} from './engine.js'
export {planBatch} from './plan.js'
export type {BatchPlan, BatchRejection, PlanScope, PropertyPlan} from './plan.js'
export {previewBatch} from './preview.js'
export {batchReport} from './report.js'
import {BatchEngine} from './engine.js'
import type {BatchEngineOptions, BatchEngineState} from './engine.js'

/** A batch engine, fresh or restored from a saved state. */
export function createBatchEngine(options: BatchEngineOptions & {state?: BatchEngineState}): BatchEngine {
  return options.state === undefined ? new BatchEngine(options) : BatchEngine.fromJSON(options.state, options)
}
