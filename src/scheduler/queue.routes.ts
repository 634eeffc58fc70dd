// /v1/queue/forecast (extension): the farm's timeline — which queued job starts on which printer, and when.
import { errorDocs } from '../http/route-docs.js';
import { isoTime } from '../clock.js';
import type { HttpDeps } from '../http/http-deps.js';
import { routeDefiner } from '../http/route.js';
import type { JsonSchema } from '../http/validation.js';
import { WAITING_REASON_TEXT } from './waiting-reasons.js';
import type { SchedulerLoop } from './scheduler-loop.js';
import { withDocs } from '../http/with-docs.js';
import { queueDocs } from './queue.docs.js';

/** What these routes' handlers use from the program's deps. */
export type QueueRouteDeps = HttpDeps & { scheduler: SchedulerLoop };
const defineRoute = routeDefiner<QueueRouteDeps>();

const forecastSchema: JsonSchema = {
  type: 'object',
  properties: {
    generated_at: { type: 'string', format: 'date-time' },
    entries: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          job_id: { type: 'string' },
          job_name: { type: 'string' },
          printer_id: { type: 'string' },
          start_at: { type: 'string', format: 'date-time' },
          end_at: { type: 'string', format: 'date-time' },
          uses_default_duration: { type: 'boolean', description: 'The job has no slicer estimate: one hour is assumed' },
        },
      },
    },
    unplaced: {
      type: 'array',
      items: {
        type: 'object',
        properties: { job_id: { type: 'string' }, job_name: { type: 'string' }, reason: { type: 'string' }, reason_text: { type: 'string' } },
      },
    },
  },
};

export const queueRoutes = withDocs(queueDocs, [
  defineRoute({
    method: 'GET',
    path: '/v1/queue/forecast',
    summary: 'Forecast of the queue: which job starts on which printer and when (from estimated durations)',
    tag: 'Jobs',
    auth: { scope: 'jobs:read' },
    responses: { 200: { description: 'The timeline', schema: forecastSchema }, ...errorDocs(403) },
    async handle(ctx, _input, deps) {
      const { forecast, rows } = await deps.scheduler.forecast();
      const names = new Map(rows.map((r) => [r.id, r.name]));
      ctx.body = {
        generated_at: isoTime(deps.clock.now()),
        entries: forecast.entries.map((e) => ({
          job_id: e.job_id,
          job_name: names.get(e.job_id) ?? '',
          printer_id: e.printer_id,
          start_at: isoTime(e.start_at),
          end_at: isoTime(e.end_at),
          uses_default_duration: e.uses_default_duration,
        })),
        unplaced: forecast.unplaced.map((u) => ({ job_id: u.job_id, job_name: names.get(u.job_id) ?? '', reason: u.reason, reason_text: WAITING_REASON_TEXT[u.reason].detail })),
      };
    },
  }),
]);
