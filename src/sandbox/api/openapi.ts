/** GET /openapi.json: the document generated from the contract's schemas, built once. */
import {buildOpenApiDocument} from '../../contract/openapi.js'
import type {ApiServer} from '../http.js'

export function registerOpenApiRoute(api: ApiServer): void {
  let document: string | undefined
  // Rule 1: "Every call ... carries an OAuth 2.0 access token", this one too; it needs no Permission.
  api.route({
    method: 'GET',
    url: '/openapi.json',
    permission: null,
    limitClass: 'read',
    handler: () => {
      document ??= JSON.stringify(buildOpenApiDocument())
      return {status: 200, body: document, headers: {'content-type': 'application/json; charset=utf-8'}}
    },
  })
}
