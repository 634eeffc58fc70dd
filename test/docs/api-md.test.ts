// docs/api.md is the Markdown rendering of the OpenAPI document as the code builds it now: a stale copy fails (and with it CI).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { apiDocument } from '../../src/app/routes-index.js';
import { apiMarkdown } from '../../scripts/docs/api-markdown.js';

it('docs/api.md equals a fresh `npm run docs`', () => {
  const fresh = apiMarkdown(apiDocument());
  const stored = readFileSync('docs/api.md', 'utf8');
  if (stored === fresh) return;
  const a = stored.split('\n');
  const b = fresh.split('\n');
  const line = a.findIndex((l, i) => l !== b[i]);
  assert.fail(`docs/api.md is stale from line ${line + 1} on (it has ${JSON.stringify(a[line])}, the code gives ${JSON.stringify(b[line])}): run npm run docs and commit it`);
});
