// `node --expose-gc --import tsx scripts/bench-analytics.ts [--json] [--jobs N]`: fleet / jobs / materials report times over N seeded jobs
// (default 100k on 50 printers over a year) in a file SQLite, and the heap growth of exporting every job as CSV
// (constant-memory paging: the growth must not scale with the row count). With --json the last line is one JSON object.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { encodeExport, exportRows } from '../src/analytics/export.service.js';
import { fleetMetrics } from '../src/analytics/fleet-metrics.service.js';
import { jobReport, materialReport } from '../src/analytics/reports.service.js';
import { openDatabase } from '../src/storage/db.js';

const argv = process.argv.slice(2);
const JSON_OUT = argv.includes('--json');
const JOBS = Number(argv[argv.indexOf('--jobs') + 1]) || 100_000;
const PRINTERS = 50;
const YEAR_START = Date.parse('2025-01-01T00:00:00Z');
const NOW = Date.parse('2026-01-01T00:00:00Z');
const log = (msg: string): void => void (JSON_OUT || console.error(msg));

function seed(sqlite: import('better-sqlite3').Database): void {
  const printer = sqlite.prepare(
    `INSERT INTO printers (id, name, connection_url, group_name, tags, ready, power_watts, created_at, updated_at)
     VALUES (?, ?, ?, ?, '[]', 1, ?, ?, ?)`,
  );
  const job = sqlite.prepare(
    `INSERT INTO jobs (id, name, status, priority, priority_rank, printer_id, file_id, created_at, started_at, completed_at,
       updated_at, elapsed_time, material_type, material_color, error_code)
     VALUES (?, ?, ?, 'normal', 1, ?, 'file_b', ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const usage = sqlite.prepare('INSERT INTO job_material_usage (job_id, tool, material_id, type, color, grams, cost) VALUES (?, 0, NULL, ?, ?, ?, ?)');
  const iso = (ms: number): string => new Date(ms).toISOString();
  sqlite.transaction(() => {
    for (let p = 0; p < PRINTERS; p++) {
      printer.run(`prt_${p}`, `P${p}`, `sim://b${p}`, p % 2 ? 'east' : 'west', 150 + p, iso(YEAR_START), iso(YEAR_START));
    }
    // Jobs laid back to back per printer: 2 h each, a 30 min queue wait, every 10th failed, every 25th cancelled.
    const per = Math.ceil(JOBS / PRINTERS);
    for (let i = 0; i < JOBS; i++) {
      const p = i % PRINTERS;
      const k = Math.floor(i / PRINTERS);
      const start = YEAR_START + (k * (NOW - YEAR_START)) / per;
      const end = start + 2 * 3_600_000;
      const status = i % 25 === 0 ? 'cancelled' : i % 10 === 0 ? 'failed' : 'completed';
      const type = i % 3 ? 'PLA' : 'PETG';
      const color = ['black', 'white', 'red'][i % 3]!;
      job.run(`job_${i}`, `Part ${i}`, status, `prt_${p}`, iso(start - 1_800_000), iso(start), iso(end), iso(end), 7000, type, color, status === 'failed' ? 'thermal' : null);
      usage.run(`job_${i}`, type, color, 25 + (i % 50), 0.5 + (i % 7) / 10);
    }
  })();
}

async function time<T>(fn: () => Promise<T>, runs = 5): Promise<number> {
  await fn();
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) await fn();
  return (performance.now() - t0) / runs;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'printfarm-bench-analytics-'));
  const handle = openDatabase(path.join(dir, 'bench.sqlite'), new Date(NOW).toISOString());
  try {
    log(`seeding ${JOBS} jobs on ${PRINTERS} printers...`);
    seed(handle.sqlite);
    handle.sqlite.exec('ANALYZE');
    const rates = { hourly_rate: 1.5, energy_cost_per_kwh: 0.3 };
    const db = handle.db;
    // The usual question (the last 30 days) and a month in the middle of the history (more jobs finished after it).
    const month = { from: '2025-12-02T00:00:00.000Z', to: '2026-01-01T00:00:00.000Z' };
    const june = { from: '2025-06-01T00:00:00.000Z', to: '2025-07-01T00:00:00.000Z' };
    const year = { from: '2025-01-01T00:00:00.000Z', to: '2026-01-01T00:00:00.000Z' };
    const series = { interval: 'day' as const, tz: 'Europe/Berlin' };
    const results = {
      jobs: JOBS,
      fleet_30d_ms: await time(() => fleetMetrics(db, month, rates, NOW)),
      fleet_june_ms: await time(() => fleetMetrics(db, june, rates, NOW)),
      fleet_year_ms: await time(() => fleetMetrics(db, year, rates, NOW)),
      fleet_30d_group_ms: await time(() => fleetMetrics(db, { ...month, group: 'east' }, rates, NOW)),
      jobs_report_30d_ms: await time(() => jobReport({ db, filter: month, nowMs: NOW, series })),
      materials_report_30d_ms: await time(() => materialReport({ db, filter: month, nowMs: NOW, series }, rates, 'EUR')),
      export_rows: 0,
      export_bytes: 0,
      export_ms: 0,
      export_heap_growth_mb: 0,
    };
    // Time first, then memory: with --expose-gc the heap is sampled after a collection every 5,000 rows, so the figure
    // is what the export retains (it must not grow with the row count), not garbage not yet collected.
    const t0 = performance.now();
    for await (const chunk of encodeExport('jobs', 'csv', exportRows('jobs', { db, filter: year, rates, nowMs: NOW }))) {
      results.export_bytes += Buffer.byteLength(chunk);
      results.export_rows++;
    }
    results.export_ms = performance.now() - t0;
    results.export_rows -= 1; // the header row
    const gc = (globalThis as { gc?: () => void }).gc;
    if (!gc) log('run with node --expose-gc for the retained-heap figure');
    gc?.();
    const heap0 = process.memoryUsage().heapUsed;
    let peak = heap0;
    let n = 0;
    for await (const _chunk of encodeExport('jobs', 'csv', exportRows('jobs', { db, filter: year, rates, nowMs: NOW }))) {
      if (++n % 5000 === 0) {
        gc?.();
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }
    }
    results.export_heap_growth_mb = (peak - heap0) / 1_048_576;
    const rounded = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, Math.round(v * 10) / 10]));
    if (!JSON_OUT) {
      console.log('metric                     value');
      for (const [k, v] of Object.entries(rounded)) console.log(`${k.padEnd(26)} ${v}`);
    } else console.log(JSON.stringify(rounded));
  } finally {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
