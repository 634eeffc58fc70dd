// The reference text and examples of the routes in openapi.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from './with-docs.js';

export const openApiDocs: RouteDocs = {
  'GET /v1/openapi.json': {
    description: [
      'No key. This API as an OpenAPI 3.1 document, generated from the same route definitions that validate requests.',
      'No request fields.',
      '',
      '```sh',
      'curl http://localhost:8080/v1/openapi.json',
      '```',
    ],
    response: {
      "openapi": "3.1.0",
      "info": {"title":"Print farm API","version":"0.1.0"},
      "paths": {"/healthz":{"get":{"summary":"Liveness and storage state"}}},
    },
  },
};
