// The farm's Prometheus registry: its own (never prom-client's global one), with the farm's families, the HTTP
// duration histogram and the Node.js process defaults; scrape() renders the text format.
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { RequestObserver } from '../http/middleware/request-timing.middleware.js';
import { registerFarmMetrics } from './farm-metrics.js';
import type { MetricsSources } from './metrics-sources.js';
import { registerPrinterMetrics } from './printer-metrics.js';
import { registerCameraMetrics } from './camera-metrics.js';

/** From a fast API read (about a millisecond) to a slow upload or export. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class FarmMetrics {
  private readonly registry = new Registry();
  private readonly durations: Histogram<'method' | 'route' | 'code'>;

  constructor(sources: MetricsSources) {
    registerPrinterMetrics(this.registry, sources);
    registerFarmMetrics(this.registry, sources);
    registerCameraMetrics(this.registry, sources);
    this.durations = new Histogram({
      name: 'printfarm_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method, matched route pattern and status code.',
      labelNames: ['method', 'route', 'code'],
      buckets: DURATION_BUCKETS,
      registers: [this.registry],
    });
    // Process and runtime families (CPU, memory, heap, GC, handles, event-loop lag), unprefixed as every Node exporter has them.
    collectDefaultMetrics({ register: this.registry });
  }

  /** The HTTP layer's hook (HttpDeps.observeRequest): route is the router's pattern, so label values stay few. */
  readonly observeRequest: RequestObserver = (s) => {
    this.durations.observe({ method: s.method, route: s.route, code: String(s.status) }, s.seconds);
  };

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every family in the Prometheus text format, gauges read from their sources now. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }
}
