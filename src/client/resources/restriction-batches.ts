import {
  BatchReportSchema,
  RestrictionBatchAcceptedSchema,
  RestrictionBatchPreviewSchema,
  type BatchReport,
  type RestrictionBatchAccepted,
  type RestrictionBatchPreview,
  type RestrictionBatchRequest,
} from '../../contract/batches.js'
import {parseAnswer} from '../parse.js'
import type {Transport} from '../transport.js'
import {segment} from './path.js'

export class RestrictionBatchesResource {
  constructor(private readonly transport: Transport) {}

  /**
   * Submits a batch. The key makes a retry (and a rerun after a crash) return the batch it created
   * instead of writing twice, so it must be the same for the same logical write.
   */
  async create(request: RestrictionBatchRequest, opts: {idempotencyKey: string}): Promise<RestrictionBatchAccepted> {
    const {dry_run: _ignored, ...body} = request as RestrictionBatchRequest & {dry_run?: boolean}
    const answer = await this.transport.send({
      method: 'POST',
      path: '/restriction-batches',
      json: body,
      idempotencyKey: opts.idempotencyKey,
    })
    return parseAnswer(RestrictionBatchAcceptedSchema, answer.body, 'POST /restriction-batches')
  }

  /** A dry run: nothing is stored or sent, but it counts against the write limit. */
  async preview(request: RestrictionBatchRequest): Promise<RestrictionBatchPreview> {
    const answer = await this.transport.send({method: 'POST', path: '/restriction-batches', json: {...request, dry_run: true}})
    return parseAnswer(RestrictionBatchPreviewSchema, answer.body, 'POST /restriction-batches (dry run)')
  }

  async get(id: string): Promise<BatchReport> {
    const answer = await this.transport.send({method: 'GET', path: `/restriction-batches/${segment(id)}`})
    return parseAnswer(BatchReportSchema, answer.body, 'GET /restriction-batches/{id}')
  }
}
