/** GET /openapi.json: the document generated from the contract's schemas, built once. */
import {API_PREFIX} from '../../contract/limits.js'
import {buildOpenApiDocument} from '../../contract/openapi.js'
import type {ApiServer} from '../http.js'

export function registerOpenApiRoute(api: ApiServer): void {
  let document: string | undefined
  api.declarePath('GET', `${API_PREFIX}/openapi.json`)
  // Public like any published API description: tools fetch it before they hold a token.
  api.app.get(`${API_PREFIX}/openapi.json`, async (_request, reply) => {
    if (document === undefined) {
      document = JSON.stringify(buildOpenApiDocument())
    }
    return reply.code(200).type('application/json; charset=utf-8').send(document)
  })
}
