// GET /v1/openapi.json: the OpenAPI 3.1 document, open without a key so tools (Swagger UI, generators) can fetch it.
import { buildOpenApiDocument } from './openapi.js';
import { defineRoute, type AnyRouteDef, type RouteDef } from './route.js';
import { withDocs } from './with-docs.js';
import { openApiDocs } from './openapi.docs.js';

/**
 * Takes the route list lazily (it includes this route) and builds the document once, on first request; `sections` are
 * the catalogues the composition root adds to its introduction.
 */
export function openApiRoutes(getRoutes: () => readonly AnyRouteDef[], sections: () => readonly string[] = () => []): RouteDef[] {
  let doc: Record<string, unknown> | undefined;
  return withDocs(openApiDocs, [
    defineRoute({
      method: 'GET',
      path: '/v1/openapi.json',
      summary: 'This API as an OpenAPI 3.1 document',
      description: 'Public: needs no API key. Lists every endpoint this server serves.',
      tag: 'Meta',
      auth: 'none',
      responses: { 200: { description: 'The OpenAPI document', schema: { type: 'object', required: ['openapi', 'paths'] } } },
      handle(ctx) {
        doc ??= buildOpenApiDocument(getRoutes(), sections());
        ctx.set('Cache-Control', 'no-cache');
        ctx.body = doc;
      },
    }),
  ]);
}
