import type {RestrictionRecord} from '../../contract/restrictions.js'
import {parseAnswer} from '../parse.js'
import type {Transport} from '../transport.js'

export interface RestrictionsQuery {
  propertyIds: string[]
  /** First night, YYYY-MM-DD. */
  from: string
  /** Last night (inclusive), YYYY-MM-DD. */
  to: string
}

export class RestrictionsResource {
  constructor(private readonly transport: Transport) {}

  /** One call: at most 100 Properties and 366 nights (callers split larger reads). */
  async get(query: RestrictionsQuery): Promise<RestrictionRecord[]> {
    const answer = await this.transport.send({
      method: 'GET',
      path: '/restrictions',
      query: {'property_id[]': query.propertyIds, from: query.from, to: query.to},
    })
    return (await parseAnswer('RestrictionsAnswerSchema', answer.body, 'GET /restrictions')).data
  }
}
