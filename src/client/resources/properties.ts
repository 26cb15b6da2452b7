import type {PropertiesPage, Property} from '../../contract/properties.js'
import type {PropertyGuide} from '../../contract/guide.js'
import {walkItems, walkPages} from '../pagination.js'
import {parseAnswer} from '../parse.js'
import type {Transport} from '../transport.js'
import {segment} from './path.js'

export interface PropertiesListOptions {
  /** Page size, 1 to 100 (the service's default is 100). */
  limit?: number
}

export class PropertiesResource {
  constructor(private readonly transport: Transport) {}

  pages(opts: PropertiesListOptions = {}): AsyncIterable<PropertiesPage> {
    return walkPages(async (cursor) => {
      const answer = await this.transport.send({method: 'GET', path: '/properties', query: {cursor, limit: opts.limit}})
      return parseAnswer('PropertiesPageSchema', answer.body, 'GET /properties')
    })
  }

  list(opts: PropertiesListOptions = {}): AsyncIterable<Property> {
    return walkItems(this.pages(opts))
  }

  async get(id: string): Promise<Property> {
    const answer = await this.transport.send({method: 'GET', path: `/properties/${segment(id)}`})
    return parseAnswer('PropertySchema', answer.body, 'GET /properties/{id}')
  }

  async guide(id: string): Promise<PropertyGuide> {
    const answer = await this.transport.send({method: 'GET', path: `/properties/${segment(id)}/guide`})
    return parseAnswer('PropertyGuideSchema', answer.body, 'GET /properties/{id}/guide')
  }
}
