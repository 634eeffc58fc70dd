// Error response documentation shared by every feature's routes, for the OpenAPI document.
import type { RouteResponseDoc } from './route.js';
import type { JsonSchema } from './validation.js';
import { errorsWithStatus } from '../error-catalogue.js';

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


/** The error responses of a route; 401 and 429 apply to every authenticated route and are always included. */
export function errorDocs(...statuses: number[]): Record<number, RouteResponseDoc> {
  const all = [...new Set([...statuses, 401, 429])].sort();
  // What each status means comes from the error catalogue: the codes that carry it, with their meanings.
  return Object.fromEntries(all.map((s) => [s, { description: errorsWithStatus(s) || 'error', schema: errorSchema }]));
}
