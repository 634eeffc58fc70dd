// `npm run bench:analytics [-- --json] [-- --jobs N]`: the p95 of every analytics report over N seeded jobs (default
// 100k on 50 printers over a year) in a file SQLite, and the CSV export's rows per second and peak resident memory
// (constant-memory paging). A human table; with --json the last line is one JSON object.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { encodeExport, exportRows } from '../src/analytics/export.service.js';
import { fleetMetrics } from '../src/analytics/fleet-metrics.service.js';
import { jobReport, materialReport, printerReport } from '../src/analytics/reports.service.js';
import { openDatabase } from '../src/storage/db.js';
import { seedJobHistory } from './seed-job-history.js';

const argv = process.argv.slice(2);
const JSON_OUT = argv.includes('--json');
const JOBS = Number(argv[argv.indexOf('--jobs') + 1]) || 100_000;
const PRINTERS = 50;
const YEAR_START = Date.parse('2025-01-01T00:00:00Z');
const NOW = Date.parse('2026-01-01T00:00:00Z');
const log = (msg: string): void => void (JSON_OUT || console.error(msg));

/** p95 of `runs` timed calls after one warm-up, in ms. */
async function p95<T>(fn: () => Promise<T>, runs = 20): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.min(times.length - 1, Math.ceil(0.95 * times.length) - 1)]!;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'printfarm-bench-analytics-'));
  const handle = openDatabase(path.join(dir, 'bench.sqlite'), new Date(NOW).toISOString());
  try {
    log(`seeding ${JOBS} jobs on ${PRINTERS} printers...`);
    seedJobHistory(handle.sqlite, { jobs: JOBS, printers: PRINTERS, from: YEAR_START, to: NOW });
    handle.sqlite.exec('ANALYZE');
    const rates = { hourly_rate: 1.5, energy_cost_per_kwh: 0.3 };
    const db = handle.db;
    // The usual question (the last 30 days) and a month in the middle of the history (more jobs finished after it).
    const month = { from: '2025-12-02T00:00:00.000Z', to: '2026-01-01T00:00:00.000Z' };
    const year = { from: '2025-01-01T00:00:00.000Z', to: '2026-01-01T00:00:00.000Z' };
    const series = { interval: 'day' as const, tz: 'Europe/Berlin' };
    const printer = { id: 'prt_0', name: 'P0', group_name: 'west' };
    const ctx = { db, filter: month, nowMs: NOW, series };
    // The usual question (the last 30 days) per endpoint, plus the fleet over a whole year (the heaviest period).
    const p95_ms = {
      fleet: await p95(() => fleetMetrics(db, month, rates, NOW)),
      fleet_group: await p95(() => fleetMetrics(db, { ...month, group: 'east' }, rates, NOW)),
      fleet_year: await p95(() => fleetMetrics(db, year, rates, NOW)),
      printer: await p95(() => printerReport({ ...ctx, filter: { ...month, printerId: 'prt_0' } }, rates, printer)),
      jobs: await p95(() => jobReport(ctx)),
      materials: await p95(() => materialReport(ctx, rates, 'EUR')),
    };
    // The export of a whole year of jobs as CSV: rows per second, and the resident memory at its peak.
    let rows = -1; // the header row
    let bytes = 0;
    const rss0 = process.memoryUsage().rss;
    let peakRss = rss0;
    const t0 = performance.now();
    for await (const chunk of encodeExport('jobs', 'csv', exportRows('jobs', { db, filter: year, rates, nowMs: NOW }))) {
      bytes += Buffer.byteLength(chunk);
      if (++rows % 2000 === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }
    const exportS = (performance.now() - t0) / 1000;
    const round = (n: number): number => Math.round(n * 10) / 10;
    const result = {
      jobs: JOBS,
      printers: PRINTERS,
      p95_ms: Object.fromEntries(Object.entries(p95_ms).map(([k, v]) => [k, round(v)])),
      export_rows: rows,
      export_mb: round(bytes / 1_048_576),
      export_rows_per_s: Math.round(rows / exportS),
      export_peak_rss_mb: round(peakRss / 1_048_576),
      export_rss_growth_mb: round((peakRss - rss0) / 1_048_576),
    };
    const table: Array<[string, string, string]> = [
      ...Object.entries(result.p95_ms).map(([k, v]): [string, string, string] => [`p95 ${k}`, `${v} ms`, '<= 20 ms']),
      ['export', `${result.export_rows_per_s} rows/s (${rows} rows, ${result.export_mb} MB CSV)`, '-'],
      ['export rss', `peak ${result.export_peak_rss_mb} MB (+${result.export_rss_growth_mb} MB)`, 'constant'],
    ];
    const w = [0, 1, 2].map((c) => Math.max(...table.map((r) => r[c]!.length), ['measure', 'result', 'target'][c]!.length));
    const line = (r: string[]): string => r.map((cell, c) => cell.padEnd(w[c]!)).join('  ');
    console.log(`${JOBS} jobs on ${PRINTERS} printers over a year; service-level calls (no HTTP), 20 runs each`);
    console.log(line(['measure', 'result', 'target']));
    console.log(w.map((n) => '-'.repeat(n)).join('  '));
    for (const r of table) console.log(line(r));
    if (JSON_OUT) console.log(JSON.stringify(result));
  } finally {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
