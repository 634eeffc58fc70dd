// /v1/analytics/*: fleet metrics (spec), printer / job / material reports and the streamed export (extensions).
import { defineRoute } from '../http/route.js';
import { errorDocs } from '../auth/route-docs.js';
import { getOrganization } from '../auth/organization.service.js';
import { resolvePeriod } from './analytics-period.js';
import { FleetQuery, FleetRecord } from './analytics.schemas.js';
import { fleetMetrics } from './fleet-metrics.service.js';

const TAG = 'Analytics';
const AUTH = { scope: 'analytics:read' } as const;

export const analyticsRoutes = [
  defineRoute<unknown, FleetQuery>({
    method: 'GET',
    path: '/v1/analytics/fleet',
    summary: 'Fleet metrics over a period',
    description: 'A job cut by the period counts only its part inside it. Period defaults: the 30 days up to now.',
    tag: TAG,
    auth: AUTH,
    query: FleetQuery,
    responses: { 200: { description: 'Fleet analytics', schema: FleetRecord }, ...errorDocs(400, 403) },
    async handle(ctx, { query }, deps) {
      const period = resolvePeriod(query, deps.clock.now());
      const org = await getOrganization(deps.db);
      const metrics = await fleetMetrics(deps.db, { from: period.from, to: period.to, group: query.group }, org, deps.clock.now());
      ctx.body = { period: { from: period.from, to: period.to }, metrics, currency: org.currency };
    },
  }),
];
