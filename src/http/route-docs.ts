// Error response documentation shared by every feature's routes, for the OpenAPI document.
import type { RouteResponseDoc } from './route.js';
import type { JsonSchema } from './validation.js';

const errorSchema: JsonSchema = {
  type: 'object',
  properties: {
    success: { type: 'boolean', enum: [false] },
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'string' } },
      required: ['code', 'message', 'details'],
    },
  },
};

const ERRORS: Record<number, string> = {
  400: 'invalid_request: the message names the field and the rule',
  401:
    'invalid_api_key: missing, unknown, revoked, expired or wrong-environment key (with WWW-Authenticate: Bearer); ' +
    'invalid_session: the session cookie is unknown or its session ended (sign in again)',
  403:
    'insufficient_permissions: the message names the missing scope; csrf_rejected: a session-cookie request that changes ' +
    'something did not come from this origin',
  404: 'resource_not_found',
  409: 'conflict with the current state',
  410: "file_deleted: the stored file was pruned by the organization's file_retention_days / file_store_max_gb (upload it again)",
  422:
    'file_invalid: the file is not usable G-code (details: the reason); file_url_forbidden: file_url or one of its ' +
    'redirects leads to an address that is never reached (link-local, multicast, broadcast, unspecified) or to a host ' +
    "outside the organization's file_url_hosts (details: the reason)",
  429: 'rate_limit_exceeded: with Retry-After; the message says after how many seconds',
  507:
    'storage_full: the disk holding the data directory is full, or an upload would eat into the reserve kept for the ' +
    'database (organization setting storage_reserve_mb); the message says what to free, reads keep working',
};

/** The error responses of a route; 401 and 429 apply to every authenticated route and are always included. */
export function errorDocs(...statuses: number[]): Record<number, RouteResponseDoc> {
  const all = [...new Set([...statuses, 401, 429])].sort();
  return Object.fromEntries(all.map((s) => [s, { description: ERRORS[s] ?? 'error', schema: errorSchema }]));
}
