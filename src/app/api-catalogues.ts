// The error codes, event types and scopes as Markdown tables, built from the code that defines them, for the API reference.
import { ERROR_CATALOGUE } from '../error-catalogue.js';
import { EVENT_CATALOGUE, EVENT_GROUPS, STREAM_ONLY_EVENT_MEANINGS } from '../events/event-names.js';
import { SCOPE_CATALOGUE, WILDCARD_MEANINGS } from '../auth/scope-catalogue.js';

/** A table cell: a pipe would end the cell early. */
const cell = (text: string): string => text.replace(/\|/g, '\\|');

export function errorCatalogueMarkdown(): string {
  const rows = Object.entries(ERROR_CATALOGUE).map(([code, doc]) => `| \`${code}\` | ${doc.statuses.join(', ')} | ${cell(doc.meaning)} |`);
  return [
    '## Error codes',
    '',
    'Every error answer is `{ "success": false, "error": { "code", "message", "details" } }`; `code` is one of these.',
    '',
    '| Code | Status | Meaning |',
    '|---|---|---|',
    ...rows,
  ].join('\n');
}

export function eventCatalogueMarkdown(): string {
  const stored = Object.entries(EVENT_CATALOGUE).map(([type, when]) => `| \`${type}\` | stored, webhooks and stream | ${cell(when)} |`);
  const live = Object.entries(STREAM_ONLY_EVENT_MEANINGS).map(([type, when]) => `| \`${type}\` | ${type === 'webhook.test' ? 'test endpoint' : 'stream only'} | ${cell(when)} |`);
  return [
    '## Event types',
    '',
    `What webhooks (\`events\`) and the live stream (\`GET /v1/events\`, \`types=\`) carry. The groups ${EVENT_GROUPS.map((g) => `\`${g}\``).join(', ')} ` +
      'match every stored type of their group, and `*` every stored type.',
    '',
    '| Type | Sent by | When |',
    '|---|---|---|',
    ...stored,
    ...live,
  ].join('\n');
}

export function scopeCatalogueMarkdown(): string {
  const rows = Object.entries(SCOPE_CATALOGUE).map(([scope, meaning]) => `| \`${scope}\` | ${cell(meaning)} |`);
  const wild = Object.entries(WILDCARD_MEANINGS).map(([scope, meaning]) => `| \`${scope}\` | ${cell(meaning)} |`);
  return ['## Scopes', '', 'What an API key (or a session) may hold; each operation names the one it needs.', '', '| Scope | Allows |', '|---|---|', ...rows, ...wild].join('\n');
}
