// A finished job history for benchmarks: N jobs laid back to back on P printers over a period, with material usage.
export interface SeedShape {
  jobs: number;
  printers: number;
  /** The history runs from `from` to `to` (Unix ms). */
  from: number;
  to: number;
}

export function seedJobHistory(sqlite: import('better-sqlite3').Database, shape: SeedShape): void {
  const { jobs: JOBS, printers: PRINTERS, from: YEAR_START, to: NOW } = shape;
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

