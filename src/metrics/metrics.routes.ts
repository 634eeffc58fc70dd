// GET /metrics: the farm in the Prometheus text format, for a scraper holding a key with metrics:read.
import type { HttpDeps } from '../http/http-deps.js';
import { errorDocs } from '../http/route-docs.js';
import { routeDefiner } from '../http/route.js';
import type { FarmMetrics } from './metrics.service.js';
import { withDocs } from '../http/with-docs.js';
import { metricsDocs } from './metrics.docs.js';

export interface MetricsRouteDeps extends HttpDeps {
  metrics: FarmMetrics;
}

const defineRoute = routeDefiner<MetricsRouteDeps>();

export const metricsRoutes = withDocs(metricsDocs, [
  defineRoute({
    method: 'GET',
    path: '/metrics',
    summary: 'Prometheus metrics',
    tag: 'Metrics',
    description:
      'Printers, jobs, the queue, serial link counters, temperatures, spools, webhook deliveries, HTTP durations, free storage and the Node.js process, in the Prometheus text exposition format (text/plain; version=0.0.4). Outside the hourly request budget.',
    auth: { scope: 'metrics:read' },
    responses: { 200: { description: 'text/plain; version=0.0.4: the metric families' }, ...errorDocs(401, 403) },
    async handle(ctx, _input, deps) {
      const text = await deps.metrics.scrape();
      ctx.set('Cache-Control', 'no-store');
      ctx.type = deps.metrics.contentType;
      ctx.body = text;
    },
  }),
]);
