// GET /healthz: liveness for supervisors and load balancers, no authentication; says whether the database answers and
// whether the disk has room (storage: ok, low below the reserve, full when writes fail for lack of room).
import { sql } from 'kysely';
import { VERSION } from '../version.js';
import { defineRoute } from './route.js';
import { withDocs } from './with-docs.js';
import { healthDocs } from './health.docs.js';

export const healthRoutes = withDocs(healthDocs, [
  defineRoute({
    method: 'GET',
    path: '/healthz',
    summary: 'Liveness and database check',
    tag: 'Health',
    auth: 'none',
    responses: {
      200: {
        description: 'The server runs and its database answers',
        schema: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: ['ok'] },
            version: { type: 'string' },
            uptime_s: { type: 'number' },
            storage: {
              type: 'string',
              enum: ['ok', 'low', 'full'],
              description: 'full: writes fail for lack of room (reads work; state of running prints is held until there is room); low: free space is below the reserve kept for the database (uploads are refused)',
            },
          },
        },
      },
    },
    async handle(ctx, _input, deps) {
      await sql`SELECT 1`.execute(deps.db);
      ctx.body = { status: 'ok', version: VERSION, uptime_s: Math.round(process.uptime()), storage: await deps.storage.state() };
    },
  }),
]);
