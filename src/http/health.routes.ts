// GET /healthz: liveness for supervisors and load balancers, no authentication; says whether the database answers.
import { VERSION } from '../version.js';
import { defineRoute } from './route.js';

export const healthRoutes = [
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
          properties: { status: { type: 'string', enum: ['ok'] }, version: { type: 'string' }, uptime_s: { type: 'number' } },
        },
      },
    },
    handle(ctx, _input, deps) {
      deps.sqlite.prepare('SELECT 1').get();
      ctx.body = { status: 'ok', version: VERSION, uptime_s: Math.round(process.uptime()) };
    },
  }),
];
