// Every spec endpoint not built yet, as planned RouteDefs: documented in OpenAPI (x-planned), never mounted, so they answer 404/405.
import { listResponseSchema } from './list-query.js';
import {
  fleetAnalyticsQuery,
  fleetAnalyticsRecord,
  jobAnalyticsQuery,
  materialAnalyticsQuery,
  printerAnalyticsQuery,
  statsRecord,
} from './planned-schemas.js';
import { defineRoute, type RouteDef } from './route.js';

const planned = (route: Omit<RouteDef, 'planned' | 'handle'>): RouteDef => defineRoute({ ...route, planned: true });
const ok = (description: string, schema?: RouteDef['responses'][number]['schema']) => ({ description, ...(schema ? { schema } : {}) });

const analytics: RouteDef[] = [
  planned({
    method: 'GET',
    path: '/v1/analytics/fleet',
    summary: 'Fleet metrics',
    tag: 'Analytics',
    auth: { scope: 'analytics:read' },
    query: fleetAnalyticsQuery,
    responses: { 200: ok('Fleet analytics', fleetAnalyticsRecord) },
  }),
  planned({
    method: 'GET',
    path: '/v1/analytics/printers/:id',
    summary: 'Statistics of one printer',
    tag: 'Analytics',
    auth: { scope: 'analytics:read' },
    query: printerAnalyticsQuery,
    responses: { 200: ok('Printer statistics', statsRecord('Printer statistics')) },
  }),
  planned({
    method: 'GET',
    path: '/v1/analytics/jobs',
    summary: 'Job statistics',
    tag: 'Analytics',
    auth: { scope: 'analytics:read' },
    query: jobAnalyticsQuery,
    responses: { 200: ok('Job statistics', statsRecord('Job statistics')) },
  }),
  planned({
    method: 'GET',
    path: '/v1/analytics/materials',
    summary: 'Material usage',
    tag: 'Analytics',
    auth: { scope: 'analytics:read' },
    query: materialAnalyticsQuery,
    responses: { 200: ok('Material usage', statsRecord('Material usage')) },
  }),
];

/** Planned endpoints; a feature that builds one removes it here (openapi also lets a built route win over a planned one). */
export const plannedRoutes: RouteDef[] = [...analytics];
