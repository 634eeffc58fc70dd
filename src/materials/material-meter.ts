// Charges the filament a job really used to the spools it printed from: live while it streams (coalesced writes), exactly
// at its end (whatever the outcome), and writes the job's per-tool grams and its cost.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { EventsRuntime } from '../events/events-runtime.js';
import type { Logger } from '../logger.js';
import { filamentGrams } from '../protocol/extrusion-tracker.js';
import type { UsedBasis } from '../printers/printer-state.js';
import type { DurableWriter } from '../storage/durable-writer.js';
import type { Database } from '../storage/schema.js';
import { filamentCost, jobCost, type CostRates } from './job-cost.js';
import { DEFAULT_DIAMETER_MM, DENSITY_BY_TYPE } from './material-defaults.js';
import { findMaterial, loadedMaterials, upsertUsage, usageOfJob, type MaterialRow, type UsageRow } from './materials.repository.js';
import { setLevel, toMaterialRecord } from './materials.service.js';

/** Spools lose weight at most this often while a job prints; a crash loses at most this much of the count. */
export const METER_WRITE_INTERVAL_MS = 3_000;

export interface MaterialMeterDeps {
  db: Kysely<Database>;
  /** Charges go through it: held (never dropped) while the disk is full, in order with the job's other writes. */
  durable: DurableWriter;
  clock: Clock;
  events: Pick<EventsRuntime, 'record' | 'live'>;
  logger: Logger;
  /** The organization's rates and the printer's power, for the cost at the job's end. */
  rates(printerId: string | null): Promise<CostRates>;
}

/** What the meter reads of a running job: its printer's session snapshot (src/printers/printer-state.ts JobSnapshot). */
export interface MeteredSnapshot {
  extruded_mm: readonly number[];
  elapsed_ms: number;
  /** How the printer's link measured extruded_mm (kept on the job as material.used_basis). */
  used_basis: UsedBasis;
}

interface Metered {
  printerId: string;
  /** Filament mm per tool already charged to spools (the snapshot's totals grow; only the difference is charged). */
  chargedMm: number[];
  lastWriteMs: number | null;
  /** Writes of one job run one after the other. */
  chain: Promise<unknown>;
  /** A live charge is queued or held: the next one waits for it rather than piling up behind a full disk. */
  busy: boolean;
}

export class MaterialMeter {
  private readonly jobs = new Map<string, Metered>();

  constructor(private readonly d: MaterialMeterDeps) {}

  /** A job started streaming on this printer: its consumption is charged from now on. */
  begin(jobId: string, printerId: string): void {
    this.jobs.set(jobId, { printerId, chargedMm: [], lastWriteMs: null, chain: Promise.resolve(), busy: false });
  }

  /**
   * A job followed again after our restart (a network printer kept printing it): what its usage rows already charged
   * counts as charged, so the printer's running total is not charged twice.
   */
  async adopt(jobId: string, printerId: string): Promise<void> {
    const spools = new Map<number, MaterialRow>((await loadedMaterials(this.d.db, printerId)).map((s) => [s.tool, s]));
    const job = await this.d.db.selectFrom('jobs').select(['material_type']).where('id', '=', jobId).executeTakeFirst();
    const chargedMm: number[] = [];
    for (const u of await usageOfJob(this.d.db, jobId)) {
      const spool = spools.get(u.tool);
      const gramsPerMm = filamentGrams(1, spool?.diameter ?? DEFAULT_DIAMETER_MM, spool?.density ?? fallbackDensity(job?.material_type));
      chargedMm[u.tool] = gramsPerMm > 0 ? u.grams / gramsPerMm : 0;
    }
    this.jobs.set(jobId, { printerId, chargedMm, lastWriteMs: null, chain: Promise.resolve(), busy: false });
  }

  /** New acknowledged lines: charges what they extruded when the last write is old enough. */
  progress(jobId: string, snap: MeteredSnapshot): Promise<void> {
    const m = this.jobs.get(jobId);
    const now = this.d.clock.now();
    if (!m || m.busy || (m.lastWriteMs !== null && now - m.lastWriteMs < METER_WRITE_INTERVAL_MS)) return Promise.resolve();
    m.lastWriteMs = now;
    m.busy = true;
    return this.queue(m, `the filament of job ${jobId}`, () => this.charge(jobId, m, snap.extruded_mm, snap.used_basis, null)).finally(() => {
      m.busy = false;
    });
  }

  /**
   * The job ended (completed, cancelled or failed): charges exactly what the firmware acknowledged since the last write,
   * and stores the job's grams per tool and its cost. Call before the job's final state is written, so its event carries them.
   */
  async finish(jobId: string, snap: MeteredSnapshot): Promise<void> {
    const m = this.jobs.get(jobId);
    if (!m) return;
    this.jobs.delete(jobId);
    await this.queue(m, `the final filament of job ${jobId}`, () => this.charge(jobId, m, snap.extruded_mm, snap.used_basis, snap.elapsed_ms / 1000));
  }

  /** A job cut off by a crash: what the last coalesced writes charged is its usage; its cost follows from that. */
  async interrupted(jobId: string, printerId: string | null, printingSeconds: number): Promise<void> {
    const rates = await this.d.rates(printerId);
    await this.d.db.transaction().execute(async (trx) => {
      await this.writeJob(trx, jobId, await usageOfJob(trx, jobId), null, { seconds: printingSeconds, rates });
    });
  }

  private queue(m: Metered, what: string, work: () => Promise<void>): Promise<void> {
    const next = m.chain.then(() => this.d.durable.write(what, work)).catch((err: Error) => this.d.logger.error('material charge failed', { error: err }));
    m.chain = next;
    return next;
  }

  /** One transaction: each tool's new grams onto its usage row and off its loaded spool, then the job's totals. */
  private async charge(jobId: string, m: Metered, totalMm: readonly number[], basis: UsedBasis, finalSeconds: number | null): Promise<void> {
    const spools = new Map<number, MaterialRow>((await loadedMaterials(this.d.db, m.printerId)).map((s) => [s.tool, s]));
    const job = await this.d.db.selectFrom('jobs').select(['material_type', 'material_color']).where('id', '=', jobId).executeTakeFirst();
    const charged = [...m.chargedMm];
    // Read before the transaction: the database has one connection, a read outside it would wait for it forever.
    const end = finalSeconds === null ? null : { seconds: finalSeconds, rates: await this.d.rates(m.printerId) };
    await this.d.db.transaction().execute(async (trx) => {
      const usage = new Map((await usageOfJob(trx, jobId)).map((u) => [u.tool, u]));
      for (let tool = 0; tool < totalMm.length; tool++) {
        const deltaMm = (totalMm[tool] ?? 0) - (charged[tool] ?? 0);
        if (deltaMm <= 0 && usage.has(tool)) continue;
        const spool = spools.get(tool);
        const grams = Math.max(0, filamentGrams(Math.max(0, deltaMm), spool?.diameter ?? DEFAULT_DIAMETER_MM, spool?.density ?? fallbackDensity(job?.material_type)));
        const before = usage.get(tool);
        const cost = filamentCost(grams, spool?.cost_per_kg ?? null);
        const row: UsageRow = {
          job_id: jobId,
          tool,
          material_id: spool?.id ?? before?.material_id ?? null,
          type: spool?.type ?? before?.type ?? job?.material_type ?? null,
          color: spool?.color ?? before?.color ?? job?.material_color ?? null,
          grams: (before?.grams ?? 0) + grams,
          cost: before?.cost == null && cost === null ? null : (before?.cost ?? 0) + (cost ?? 0),
        };
        await upsertUsage(trx, row);
        usage.set(tool, row);
        if (spool && grams > 0) await setLevel(this.d, trx, spool.id, (s) => s.remaining_weight - grams);
        charged[tool] = Math.max(charged[tool] ?? 0, totalMm[tool] ?? 0);
      }
      await this.writeJob(trx, jobId, [...usage.values()], basis, end);
    });
    m.chargedMm = charged;
    // After the commit: open dashboards see each spool drawn down as the job prints (every coalesced write).
    for (const spool of spools.values()) {
      const now = await findMaterial(this.d.db, spool.id);
      if (now && now.remaining_weight !== spool.remaining_weight) this.d.events.live('material.updated', toMaterialRecord(now));
    }
  }

  /** The job's grams per tool and total; with the printing time (the job ended) also its cost. */
  private async writeJob(
    trx: Kysely<Database>,
    jobId: string,
    usage: UsageRow[],
    basis: UsedBasis | null,
    end: { seconds: number; rates: CostRates } | null,
  ): Promise<void> {
    const used = Object.fromEntries(usage.sort((a, b) => a.tool - b.tool).map((u) => [String(u.tool), round3(u.grams)]));
    const total = usage.reduce((sum, u) => sum + u.grams, 0);
    const cost = end === null ? undefined : jobCost(usage.map((u) => u.cost), end.seconds, end.rates);
    await trx
      .updateTable('jobs')
      .set({
        material_used: JSON.stringify(used),
        material_used_g: round3(total),
        ...(basis !== null ? { material_used_basis: basis } : {}),
        ...(cost !== undefined ? { cost } : {}),
      })
      .where('id', '=', jobId)
      .execute();
  }
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/** A tool without a spool: the job's material type's density, else PLA's (the grams are then an estimate). */
function fallbackDensity(type: string | null | undefined): number {
  return DENSITY_BY_TYPE[(type ?? '').trim().toUpperCase()] ?? DENSITY_BY_TYPE.PLA!;
}
