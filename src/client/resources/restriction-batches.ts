import type {BatchReport, RestrictionBatchAccepted, RestrictionBatchPreview, RestrictionBatchRequest} from '../../contract/batches.js'
import {parseAnswer} from '../parse.js'
import type {Transport} from '../transport.js'
import {segment} from './path.js'

export class RestrictionBatchesResource {
  constructor(private readonly transport: Transport) {}

  /**
   * Submits a batch. The key names one attempt: its retries (and a rerun that recovers an attempt
   * whose answer was lost) get the batch it created instead of writing twice. A new intention, even
   * with the same content, takes a new key.
   */
  async create(request: RestrictionBatchRequest, opts: {idempotencyKey: string}): Promise<RestrictionBatchAccepted> {
    const {dry_run: _ignored, ...body} = request as RestrictionBatchRequest & {dry_run?: boolean}
    const answer = await this.transport.send({
      method: 'POST',
      path: '/restriction-batches',
      json: body,
      idempotencyKey: opts.idempotencyKey,
    })
    return parseAnswer('RestrictionBatchAcceptedSchema', answer.body, 'POST /restriction-batches')
  }

  /** A dry run: nothing is stored or sent (so it is retried like a read), but it counts against the write limit. */
  async preview(request: RestrictionBatchRequest): Promise<RestrictionBatchPreview> {
    const answer = await this.transport.send({method: 'POST', path: '/restriction-batches', json: {...request, dry_run: true}, kind: 'dry_run'})
    return parseAnswer('RestrictionBatchPreviewSchema', answer.body, 'POST /restriction-batches (dry run)')
  }

  async get(id: string): Promise<BatchReport> {
    const answer = await this.transport.send({method: 'GET', path: `/restriction-batches/${segment(id)}`})
    return parseAnswer('BatchReportSchema', answer.body, 'GET /restriction-batches/{id}')
  }
}
