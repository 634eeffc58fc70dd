// `npm run docs`: writes docs/api.md, the Markdown rendering of the OpenAPI document, for reading without a running appliance.
import { writeFileSync } from 'node:fs';
import { apiDocument } from '../src/app/routes-index.js';
import { apiMarkdown } from './docs/api-markdown.js';

export const API_MD = 'docs/api.md';

writeFileSync(API_MD, apiMarkdown(apiDocument()));
console.log(`wrote ${API_MD}`);
