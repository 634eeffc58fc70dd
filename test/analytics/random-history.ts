// A seeded random farm history for the roll-up tests: odd jobs included, then rewritten the ways the program writes jobs.
// Written through kysely with plain SQL every engine reads, so the same history lands on SQLite and on PostgreSQL.
import { CompiledQuery, PostgresAdapter, type Kysely } from 'kysely';
import type { Database } from '../../src/storage/schema.js';

/** Small fast seeded PRNG (mulberry32): the same history for the same seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOUR = 3_600_000;
const START = Date.parse('2025-11-10T00:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();

export const PRINTERS = ['prt_0', 'prt_1', 'prt_2', 'prt_3', 'prt_4', 'prt_5', 'prt_6', 'prt_7'];

// Grams, costs and printing seconds are unrounded: sums of round decimals can land exactly half-way between two
// reported units (a cent, a second), where summing in another order may round either way.

/**
 * `jobs` jobs from 10 Nov 2025 to `nowMs` on 8 printers (east, west, none; some without a power rating) a deleted one and one
 * added after its jobs: every final state, a few running, queued, cancelled while queued, of no length, stamped backwards, running for
 * days, waiting or not, usage rows or only the job's own totals. Then, as later writes do: usage rows written after
 * the job ended or before its row existed, rows rewritten and deleted, jobs moved, requeued and deleted, and printers
 * moved to another group.
 */
export async function seedHistory(db: Kysely<Database>, opts: { jobs: number; seed: number; nowMs: number }): Promise<void> {
  await db.transaction().execute((trx) => writeHistory(trx, opts));
}

type Statement = { run(...params: unknown[]): Promise<unknown[]> };

/** A statement with `?` placeholders (PostgreSQL numbers them: $1, $2, ...). */
function statements(db: Kysely<Database>): (text: string) => Statement {
  const numbered = db.getExecutor().adapter instanceof PostgresAdapter;
  return (text) => {
    let n = 0;
    const sql = numbered ? text.replace(/\?/g, () => `$${++n}`) : text;
    return { run: async (...params) => (await db.executeQuery(CompiledQuery.raw(sql, params))).rows };
  };
}

async function writeHistory(db: Kysely<Database>, opts: { jobs: number; seed: number; nowMs: number }): Promise<void> {
  const prepare = statements(db);
  const rnd = random(opts.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const printer = prepare(
    `INSERT INTO printers (id, name, connection_url, group_name, tags, ready, power_watts, created_at, updated_at) VALUES (?, ?, ?, ?, '[]', 1, ?, ?, ?)`,
  );
  const material = prepare(
    `INSERT INTO materials (id, type, brand, color, spool_weight, remaining_weight, density, status, created_at, updated_at) VALUES (?, ?, ?, ?, 1000, 1000, 1.24, 'active', ?, ?)`,
  );
  const job = prepare(
    `INSERT INTO jobs (id, name, status, priority, priority_rank, printer_id, file_id, created_at, started_at, completed_at, updated_at,
       elapsed_time, material_type, material_color, material_used_g, cost, error_code)
     VALUES (?, ?, ?, 'normal', 1, ?, 'file_r', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const usage = prepare(
    `INSERT INTO job_material_usage (job_id, tool, material_id, type, color, grams, cost) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (job_id, tool) DO UPDATE SET grams = excluded.grams, cost = excluded.cost`,
  );
  const t0 = iso(START);
  const types = ['PLA', 'PETG', 'ABS', null] as const;
  const colors = ['black', 'white', 'red', '', null] as const;
  const spools = ['mat_a', 'mat_b', 'mat_c', null] as const;
  const running = new Set<string>();
  const later: Array<() => Promise<unknown>> = [];
  const ids: string[] = [];

  {
    for (const [i, id] of PRINTERS.entries()) await printer.run(id, `P${i}`, `sim://${id}`, i < 4 ? 'east' : i < 6 ? 'west' : null, i % 3 === 2 ? null : 90 + i * 37, t0, t0);
    await material.run('mat_a', 'PLA', 'Acme', 'black', t0, t0);
    await material.run('mat_b', 'PETG', null, 'red', t0, t0);
    await material.run('mat_c', 'PLA', 'Brand C', null, t0, t0);
    for (let i = 0; i < opts.jobs; i++) {
      const id = `job_${i}`;
      const printerId = rnd() < 0.03 ? null : rnd() < 0.05 ? pick(['prt_gone', 'prt_late']) : pick(PRINTERS);
      const start = START + Math.floor(rnd() * (opts.nowMs - START - 12 * HOUR));
      const r = rnd();
      // Mostly minutes to hours; some for days; some of no length; a few stamped ending before they started.
      const wall = r < 0.02 ? Math.floor((1 + rnd() * 6) * 24 * HOUR) : r < 0.03 ? 0 : r < 0.04 ? -Math.floor(rnd() * 2 * HOUR) : Math.floor(rnd() * 7 * HOUR) + 1;
      const e = rnd();
      const elapsed = e < 0.1 ? 0 : e < 0.15 ? Math.abs(wall) / 1000 + 600.123 : (Math.abs(wall) / 1000) * (0.5 + rnd() / 2);
      const s = rnd();
      let status = s < 0.74 ? 'completed' : s < 0.86 ? 'failed' : s < 0.94 ? 'cancelled' : s < 0.97 ? 'queued' : 'cancelled_queued';
      const created = start - Math.floor((rnd() < 0.1 ? -0.2 : rnd() * 5) * HOUR);
      let startedAt: string | null = iso(start);
      let completedAt: string | null = iso(start + wall);
      if (status === 'queued' || status === 'cancelled_queued') {
        startedAt = null;
        completedAt = status === 'queued' ? null : iso(created + HOUR);
        status = status === 'queued' ? 'queued' : 'cancelled';
      }
      if (i >= opts.jobs - 40 && printerId !== null && printerId !== 'prt_gone' && !running.has(printerId)) {
        // Running now: started within the last hours (one per printer).
        running.add(printerId);
        status = rnd() < 0.5 ? 'printing' : 'paused';
        startedAt = iso(opts.nowMs - Math.floor(rnd() * 30 * HOUR));
        completedAt = null;
      }
      const own = rnd() < 0.2;
      await job.run(
        id, id, status, status === 'queued' ? null : printerId, iso(created), startedAt, completedAt, completedAt ?? t0, elapsed,
        pick(types), pick(colors), own ? rnd() * 200 : null, own && rnd() < 0.8 ? rnd() * 9 : null,
        status === 'failed' ? pick(['thermal_runaway', 'jam', null]) : null,
      );
      ids.push(id);
      if (!own && startedAt !== null && rnd() < 0.85) {
        const tools = rnd() < 0.3 ? 2 : 1;
        for (let tool = 0; tool < tools; tool++) {
          const row = [id, tool, pick(spools), pick(types), pick(colors), rnd() * 300, rnd() < 0.85 ? rnd() * 8 : null] as const;
          // Some usage arrives after the job ended (the meter's last write), the rest with it.
          if (rnd() < 0.1) later.push(() => usage.run(...row));
          else await usage.run(...row);
        }
      }
    }
    for (const write of later) await write();
    // Usage rows written before their job row.
    for (let i = 0; i < 150; i++) {
      const id = `job_early_${i}`;
      await usage.run(id, 0, pick(spools), pick(types), pick(colors), rnd() * 50, rnd() * 3);
      const start = START + Math.floor(rnd() * (opts.nowMs - START - 12 * HOUR));
      await job.run(id, id, 'completed', pick(PRINTERS), iso(start - HOUR), iso(start), iso(start + Math.floor(rnd() * 5 * HOUR)), iso(start), 1800, 'PLA', 'black', null, null, null);
      ids.push(id);
    }
    // Rewrites: usage re-measured, moved to a spool, deleted (a job left without rows counts its own totals again).
    for (let i = 0; i < 300; i++) await prepare('UPDATE job_material_usage SET grams = grams * 1.1, type = ? WHERE job_id = ?').run(pick(types), pick(ids));
    for (let i = 0; i < 100; i++) await prepare('UPDATE job_material_usage SET material_id = ?, color = ? WHERE job_id = ? AND tool = 0').run(pick(spools), pick(colors), pick(ids));
    for (let i = 0; i < 200; i++) await prepare('DELETE FROM job_material_usage WHERE job_id = ? AND tool = 0').run(pick(ids));
    // Jobs rewritten: finished later, re-timed, re-stamped, failed with another code, moved to another printer, requeued.
    const update = (set: string, ...args: unknown[]) => prepare(`UPDATE jobs SET ${set} WHERE id = ? AND completed_at IS NOT NULL`).run(...args);
    const at = (ms: number): string => iso(ms);
    // Finished three hours later (the new stamp computed here: no date arithmetic in SQL, so every engine takes it).
    for (let i = 0; i < 100; i++) {
      const id = pick(ids);
      const [row] = (await prepare('SELECT completed_at FROM jobs WHERE id = ? AND completed_at IS NOT NULL').run(id)) as { completed_at: string }[];
      if (row) await update(`completed_at = ?, elapsed_time = elapsed_time + 60.0123`, at(Date.parse(row.completed_at) + 3 * HOUR), id);
    }
    for (let i = 0; i < 50; i++) await update(`elapsed_time = ?`, rnd() * 9000, pick(ids));
    for (let i = 0; i < 50; i++) await update(`printer_id = ?`, pick(PRINTERS), pick(ids));
    for (let i = 0; i < 30; i++) await update(`status = 'failed', error_code = ?`, pick(['jam', null]), pick(ids));
    for (let i = 0; i < 20; i++) await update(`material_used_g = ?, cost = ?`, rnd() * 90, rnd() * 5, pick(ids));
    for (let i = 0; i < 30; i++) {
      await prepare(`UPDATE jobs SET status = 'queued', started_at = NULL, completed_at = NULL, printer_id = NULL, elapsed_time = 0 WHERE id = ? AND status = 'cancelled'`).run(pick(ids));
    }
    for (let i = 0; i < 150; i++) await prepare('DELETE FROM jobs WHERE id = ?').run(pick(ids));
    // Printers change group; one is deleted (its jobs stay).
    await prepare(`UPDATE printers SET group_name = 'west' WHERE id = 'prt_3'`).run();
    await prepare(`UPDATE printers SET group_name = 'east' WHERE id = 'prt_6'`).run();
    await prepare(`UPDATE printers SET power_watts = 333 WHERE id = 'prt_1'`).run();
    await prepare(`UPDATE printers SET power_watts = NULL WHERE id = 'prt_4'`).run();
    await prepare(`DELETE FROM printers WHERE id = 'prt_7'`).run();
    // A printer row arriving after jobs that name it (an import).
    await printer.run('prt_late', 'Late', 'sim://late', 'east', 250, t0, t0);
  }
}
