// Request schemas, record schemas and list specs of the endpoints not built yet (jobs, materials, analytics), per spec + api-decisions.
import type { ListSpec } from './list-query.js';
import type { JsonSchema } from './validation.js';

// ---- shared pieces -------------------------------------------------------------------------------------------------

const str = (min: number, max: number, description?: string): JsonSchema => ({
  type: 'string',
  minLength: min,
  maxLength: max,
  ...(description ? { description } : {}),
});
const timestamp: JsonSchema = { type: 'string', format: 'date-time' };
const nullableTimestamp: JsonSchema = { type: ['string', 'null'], format: 'date-time' };
const tags: JsonSchema = {
  type: 'array',
  maxItems: 20,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 50 },
  description: 'Free labels, at most 20 of up to 50 characters.',
};
const printerRef: JsonSchema = { type: 'string', pattern: '^prt_[A-Za-z0-9]+$', maxLength: 64, description: 'A printer id (prt_...).' };

/** A date (the whole UTC day) or a date-time with zone, as query value. */
const dateQuery = (description: string): JsonSchema => ({
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$',
  description,
});

// ---- analytics -----------------------------------------------------------------------------------------------------

const periodQuery = {
  from: dateQuery('Start of the period (default: 30 days before to); a date alone means its first instant (UTC).'),
  to: dateQuery('End of the period (default: now); a date alone means the whole day (UTC).'),
};

export const fleetAnalyticsQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...periodQuery, group: str(1, 100, 'Only printers of this group.') },
};
export const printerAnalyticsQuery: JsonSchema = { type: 'object', additionalProperties: false, properties: { ...periodQuery } };
export const jobAnalyticsQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...periodQuery, printer_id: printerRef, group: str(1, 100) },
};
export const materialAnalyticsQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...periodQuery, type: str(1, 50, 'Only this material type.') },
};

const period: JsonSchema = { type: 'object', properties: { from: timestamp, to: timestamp } };

export const fleetAnalyticsRecord: JsonSchema = {
  type: 'object',
  properties: {
    period,
    metrics: {
      type: 'object',
      properties: Object.fromEntries(
        [
          'total_printers',
          'active_printers',
          'utilization_rate',
          'jobs_completed',
          'success_rate',
          'total_print_time',
          'material_consumed',
          'estimated_cost',
        ].map((k) => [k, { type: 'number' }]),
      ),
    },
  },
};

export const statsRecord = (what: string): JsonSchema => ({
  type: 'object',
  description: `${what} over the period.`,
  properties: { period, metrics: { type: 'object', additionalProperties: { type: 'number' } } },
});
