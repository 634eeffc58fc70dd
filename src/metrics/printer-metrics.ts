// Per-printer families: identity, status counts, the serial link's counters, the streaming rate, progress, temperatures.
import type { Registry } from 'prom-client';
import { printerKindOf } from '../printers/network-url.js';
import { apiStatus, PRINTER_STATUSES } from '../printers/printer-record.js';
import type { PrinterLink } from '../printers/printer-link.js';
import type { ProtocolStats, Temperatures } from '../protocol/protocol-types.js';
import { collectedCounter, collectedGauge, type Sample } from './collected-metric.js';
import type { MetricsSources } from './metrics-sources.js';
import { printerRows } from './metrics.repository.js';

const BY_PRINTER = ['printer_id'] as const;

/** The serial link's counters (serial-stats.ts) that are metrics: name, help, which ProtocolStats field. */
const LINK_COUNTERS: ReadonlyArray<readonly [string, string, (s: ProtocolStats) => number]> = [
  ['printfarm_printer_lines_sent_total', 'Numbered lines written to the printer for the first time (since its link came up).', (s) => s.linesSent],
  ['printfarm_printer_resends_total', 'Resend requests from the firmware (a line arrived damaged): the link-quality figure.', (s) => s.resends],
  ['printfarm_printer_timeouts_total', 'Times an expected ok did not arrive in time.', (s) => s.timeouts],
];

/** One sample per session with a streamed link (serial, sim, TCP bridge): network printers keep no line counters. */
function linkCounter(sessions: MetricsSources['sessions'], pick: (s: ProtocolStats) => number): Sample[] {
  return sessions.list().flatMap((link) => {
    const stats = link.stats();
    return stats === null ? [] : [{ labels: { printer_id: link.printerId }, value: pick(stats) }];
  });
}

/**
 * Lines the firmware acknowledged per second of printing, averaged over the running job (pauses excluded, as its
 * elapsed time is); 0 while the printer streams nothing. For a rate over the last minutes use
 * rate(printfarm_printer_lines_sent_total[1m]).
 */
export function streamingRate(link: Pick<PrinterLink, 'snapshot'>): number {
  const snap = link.snapshot();
  const job = snap.job;
  if (snap.status !== 'printing' || !job || job.elapsed_ms < 1000) return 0;
  return job.lines_acked / (job.elapsed_ms / 1000);
}

/** Every heater the firmware reports, by name: hotend, bed, chamber and T0, T1… of a multi-tool printer. */
export function heaterReadings(t: Temperatures): Array<{ heater: string; actual: number; target: number | undefined }> {
  const out: Array<{ heater: string; actual: number; target: number | undefined }> = [];
  const add = (heater: string, actual: number | undefined, target: number | undefined): void => {
    if (typeof actual === 'number' && Number.isFinite(actual)) out.push({ heater, actual, target });
  };
  add('hotend', t.hotend, t.hotend_target);
  add('bed', t.bed, t.bed_target);
  add('chamber', t.chamber, t.chamber_target);
  t.tools?.forEach((tool, i) => add(`T${i}`, tool.actual, tool.target));
  return out;
}

export function registerPrinterMetrics(registry: Registry, src: MetricsSources): void {
  const { db, sessions } = src;

  collectedGauge(
    registry,
    { name: 'printfarm_printer_info', help: 'One series per stored printer (value 1) carrying its name and kind, to join on printer_id.', labelNames: ['printer_id', 'name', 'kind'] },
    async () => (await printerRows(db)).map((p) => ({ labels: { printer_id: p.id, name: p.name, kind: printerKindOf(p.connection_url) }, value: 1 })),
  );

  collectedGauge(
    registry,
    { name: 'printfarm_printers', help: 'Stored printers by live status (offline includes connecting).', labelNames: ['status'] },
    async () => {
      const counts = new Map<string, number>(PRINTER_STATUSES.map((s) => [s, 0]));
      for (const p of await printerRows(db)) {
        const status = apiStatus(sessions.get(p.id)?.currentStatus);
        counts.set(status, (counts.get(status) ?? 0) + 1);
      }
      return [...counts].map(([status, value]) => ({ labels: { status }, value }));
    },
  );

  for (const [name, help, pick] of LINK_COUNTERS) collectedCounter(registry, { name, help, labelNames: BY_PRINTER }, () => linkCounter(sessions, pick));

  collectedGauge(
    registry,
    { name: 'printfarm_printer_stream_lines_per_second', help: "Lines acknowledged per second of printing, averaged over the running job; 0 when not streaming.", labelNames: BY_PRINTER },
    () => sessions.list().flatMap((link) => (link.stats() === null ? [] : [{ labels: { printer_id: link.printerId }, value: streamingRate(link) }])),
  );

  collectedGauge(
    registry,
    { name: 'printfarm_printer_job_progress_percent', help: "Progress of the printer's running job, 0..100 (no series when it runs none).", labelNames: BY_PRINTER },
    () =>
      sessions.list().flatMap((link) => {
        const job = link.snapshot().job;
        return job ? [{ labels: { printer_id: link.printerId }, value: job.progress }] : [];
      }),
  );

  const temperatures = (which: 'actual' | 'target'): Sample[] =>
    sessions.list().flatMap((link) => {
      const snap = link.snapshot();
      if (apiStatus(snap.status) === 'offline') return [];
      return heaterReadings(snap.temperatures).flatMap((r) => {
        const value = which === 'actual' ? r.actual : r.target;
        return value === undefined ? [] : [{ labels: { printer_id: link.printerId, heater: r.heater }, value }];
      });
    });
  collectedGauge(
    registry,
    { name: 'printfarm_printer_temperature_celsius', help: 'Last reported temperature of each heater of a connected printer.', labelNames: ['printer_id', 'heater'] },
    () => temperatures('actual'),
  );
  collectedGauge(
    registry,
    { name: 'printfarm_printer_temperature_target_celsius', help: 'Target temperature of each heater of a connected printer (0: off).', labelNames: ['printer_id', 'heater'] },
    () => temperatures('target'),
  );
}
