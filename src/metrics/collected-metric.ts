// Metric families whose values are read at scrape time through prom-client's collect(): one place for read, reset, fill.
import { Counter, Gauge, type Registry } from 'prom-client';

export interface Sample {
  labels?: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  labelNames?: readonly string[];
}

type Read = () => readonly Sample[] | Promise<readonly Sample[]>;

const optionsOf = (registry: Registry, family: Family) => ({
  name: family.name,
  help: family.help,
  labelNames: [...(family.labelNames ?? [])],
  registers: [registry],
});

/**
 * A gauge refilled on every scrape from its source: a series that left the source (a deleted printer, an archived
 * spool) leaves the output too instead of repeating its last value forever.
 */
export function collectedGauge(registry: Registry, family: Family, read: Read): void {
  new Gauge({
    ...optionsOf(registry, family),
    async collect() {
      const samples = await read();
      this.reset();
      for (const s of samples) this.set(s.labels ?? {}, s.value);
    },
  });
}

/**
 * A counter whose running total is kept elsewhere (a session's protocol counters, the webhook worker's outcomes) and
 * copied at scrape time. When the source starts again from 0 (a reconnect) Prometheus sees a counter reset, which
 * rate() and increase() handle.
 */
export function collectedCounter(registry: Registry, family: Family, read: Read): void {
  new Counter({
    ...optionsOf(registry, family),
    async collect() {
      const samples = await read();
      this.reset();
      for (const s of samples) this.inc(s.labels ?? {}, s.value);
    },
  });
}
