// `npm run docs`: writes docs/api.md, the Markdown rendering of the OpenAPI document, for reading without a running appliance.
import { writeFileSync } from 'node:fs';
import { allRoutes } from '../src/app/routes-index.js';
import { buildOpenApiDocument } from '../src/http/openapi.js';
import { apiMarkdown } from './docs/api-markdown.js';

export const API_MD = 'docs/api.md';

writeFileSync(API_MD, apiMarkdown(buildOpenApiDocument(allRoutes())));
console.log(`wrote ${API_MD}`);
