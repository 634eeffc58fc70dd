// Spool rules: create with defaults, read, list, PATCH (load/unload swap, weigh-in, archive), and every fill-level change
// going through one function that keeps status and the material.low/material.empty events right.
import type { Kysely, Updateable } from 'kysely';
import { isoTime, type Clock } from '../clock.js';
import { AppError, badRequest, invalidState, notFound } from '../errors.js';
import type { EventsRuntime } from '../events/events-runtime.js';
import { newId } from '../ids.js';
import { runListQuery, type ListPage, type ListQuery } from '../storage/list-page.js';
import type { Database, MaterialTable } from '../storage/schema.js';
import { DEFAULT_DIAMETER_MM, defaultDensity } from './material-defaults.js';
import { initialLevel, nextLevel } from './material-levels.js';
import { findMaterial, insertMaterial, selectMaterials, selectSpoolUsage, unloadTool, updateMaterial, type MaterialRow } from './materials.repository.js';
import type { MaterialCreate, MaterialUpdate } from './materials.schemas.js';

export interface MaterialsDeps {
  db: Kysely<Database>;
  clock: Clock;
  events: Pick<EventsRuntime, 'record' | 'live'>;
  /** Only asked whether a printer exists (404 from get means no). */
  printers: { get(id: string): Promise<unknown> };
  /** A spool changed (loaded, refilled, archived): queued jobs may fit a printer now. */
  scheduler?: { wake(): void };
}

/** A spool as the API shows it: the row without the internal material.low latch. */
export type MaterialRecord = Omit<MaterialRow, 'low_notified'>;

/** Grams shown with 0.01 g resolution; the row keeps the full value so many small draws add up exactly. */
const round2 = (n: number): number => Math.round(n * 100) / 100;

export function toMaterialRecord(row: MaterialRow): MaterialRecord {
  return {
    id: row.id,
    type: row.type,
    brand: row.brand,
    color: row.color,
    spool_weight: row.spool_weight,
    remaining_weight: round2(row.remaining_weight),
    empty_spool_weight: row.empty_spool_weight,
    cost_per_kg: row.cost_per_kg,
    diameter: row.diameter,
    density: row.density,
    printer_id: row.printer_id,
    tool: row.tool,
    reorder_threshold: row.reorder_threshold,
    status: row.status,
    lot: row.lot,
    notes: row.notes,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function getMaterial(db: Kysely<Database>, id: string): Promise<MaterialRow> {
  const row = await findMaterial(db, id);
  if (!row) throw notFound(`material ${id}`);
  return row;
}

export function listMaterials(db: Kysely<Database>, q: ListQuery): Promise<ListPage<Partial<MaterialRecord>>> {
  return runListQuery(selectMaterials(db), q, toMaterialRecord);
}

/** One line of a spool's usage history as the API shows it. */
export interface SpoolUsageRecord {
  job_id: string;
  job_name: string;
  job_status: string;
  printer_id: string | null;
  tool: number;
  grams: number;
  cost: number | null;
  at: string;
}

/** What jobs drew from a spool, newest first by default; 404 for an unknown spool. */
export async function spoolUsage(db: Kysely<Database>, id: string, q: ListQuery): Promise<ListPage<Partial<SpoolUsageRecord>>> {
  await getMaterial(db, id);
  return runListQuery(selectSpoolUsage(db, id), q, (row) => ({
    job_id: row.job_id,
    job_name: row.job_name,
    job_status: row.job_status,
    printer_id: row.printer_id,
    tool: row.tool,
    // As the job's material.used: the row keeps full precision so many small live draws add up exactly.
    grams: Math.round(row.grams * 1000) / 1000,
    cost: row.cost,
    at: row.at,
  }));
}

async function checkPrinter(deps: MaterialsDeps, printerId: string): Promise<void> {
  const exists = await deps.printers.get(printerId).then(
    () => true,
    () => false,
  );
  if (!exists) throw new AppError(400, 'invalid_printer', `printer_id: printer ${printerId} does not exist`, 'list printers with GET /v1/printers');
}

export async function createMaterial(deps: MaterialsDeps, input: MaterialCreate): Promise<MaterialRecord> {
  const density = input.density ?? defaultDensity(input.type);
  if (input.printer_id) await checkPrinter(deps, input.printer_id);
  const remaining = input.remaining_weight ?? input.spool_weight;
  const threshold = input.reorder_threshold ?? null;
  const now = isoTime(deps.clock.now());
  const row: MaterialTable = {
    id: newId('mat'),
    type: input.type.trim(),
    brand: input.brand ?? null,
    color: input.color ?? null,
    spool_weight: input.spool_weight,
    remaining_weight: remaining,
    empty_spool_weight: input.empty_spool_weight ?? null,
    cost_per_kg: input.cost_per_kg ?? null,
    diameter: input.diameter ?? DEFAULT_DIAMETER_MM,
    density,
    printer_id: input.printer_id ?? null,
    tool: input.tool ?? 0,
    reorder_threshold: threshold,
    ...initialLevel(remaining, threshold),
    lot: input.lot ?? null,
    notes: input.notes ?? null,
    created_at: now,
    updated_at: now,
  };
  await deps.db.transaction().execute(async (trx) => {
    if (row.printer_id) await unloadTool(trx, row.printer_id, row.tool, row.id, now);
    await insertMaterial(trx, row);
  });
  deps.scheduler?.wake();
  const record = toMaterialRecord(row);
  deps.events.live('material.updated', record);
  return record;
}

/** The remaining weight a weigh-in gives: gross minus the empty spool (stated in the same PATCH or stored). */
function weighIn(current: MaterialRow, patch: MaterialUpdate): number | undefined {
  if (patch.measured_gross_weight === undefined) return patch.remaining_weight;
  if (patch.remaining_weight !== undefined) {
    throw badRequest('measured_gross_weight: give either it or remaining_weight, not both');
  }
  const tare = patch.empty_spool_weight !== undefined ? patch.empty_spool_weight : current.empty_spool_weight;
  if (tare === null) {
    throw badRequest('measured_gross_weight: the spool has no empty_spool_weight', 'weigh the empty spool once and set empty_spool_weight (in this PATCH or before)');
  }
  if (patch.measured_gross_weight < tare) {
    throw badRequest(`measured_gross_weight: ${patch.measured_gross_weight} g is less than the empty spool (${tare} g)`);
  }
  return patch.measured_gross_weight - tare;
}

export async function patchMaterial(deps: MaterialsDeps, id: string, patch: MaterialUpdate): Promise<MaterialRecord> {
  const current = await getMaterial(deps.db, id);
  const remaining = weighIn(current, patch);
  if (patch.printer_id) await checkPrinter(deps, patch.printer_id);
  const archiving = patch.status === 'archived';
  const archived = archiving || (current.status === 'archived' && patch.status !== 'active');
  if (archived && patch.printer_id) throw invalidState(`material ${id} is archived: set status active before loading it`);
  const now = isoTime(deps.clock.now());
  const set: Updateable<MaterialTable> = { updated_at: now };
  for (const key of ['type', 'brand', 'color', 'spool_weight', 'empty_spool_weight', 'cost_per_kg', 'diameter', 'density', 'tool', 'lot', 'notes'] as const) {
    if (patch[key] !== undefined) (set as Record<string, unknown>)[key] = patch[key];
  }
  if (patch.printer_id !== undefined) set.printer_id = patch.printer_id;
  if (archiving) set.printer_id = null;
  const after = await deps.db.transaction().execute(async (trx) => {
    const printerId = set.printer_id !== undefined ? set.printer_id : current.printer_id;
    const tool = set.tool ?? current.tool;
    if (printerId && (printerId !== current.printer_id || tool !== current.tool)) await unloadTool(trx, printerId, tool, id, now);
    await updateMaterial(trx, id, set);
    if (patch.status !== undefined && patch.status !== current.status) {
      // Bringing a spool back from the archive: its status follows its level again.
      const status = archiving ? 'archived' : (remaining ?? current.remaining_weight) > 0 ? 'active' : 'empty';
      await updateMaterial(trx, id, { status });
    }
    const threshold = patch.reorder_threshold !== undefined ? patch.reorder_threshold : current.reorder_threshold;
    await setLevel(deps, trx, id, (row) => remaining ?? row.remaining_weight, threshold);
    return toMaterialRecord((await findMaterial(trx, id))!);
  });
  deps.scheduler?.wake();
  deps.events.live('material.updated', after);
  return after;
}

/** DELETE: archives (history keeps pointing at the spool) and unloads it. Archiving twice is fine. */
export async function archiveMaterial(deps: MaterialsDeps, id: string): Promise<void> {
  const current = await getMaterial(deps.db, id);
  if (current.status === 'archived' && current.printer_id === null) return;
  await updateMaterial(deps.db, id, { status: 'archived', printer_id: null, updated_at: isoTime(deps.clock.now()) });
  deps.scheduler?.wake();
  deps.events.live('material.updated', toMaterialRecord(await getMaterial(deps.db, id)));
}

/**
 * The one way a spool's fill level changes, inside the caller's transaction: the new level from the row as it is now
 * (so concurrent draws never overwrite each other), status and the low latch by the level rules, and the events.
 */
export async function setLevel(
  deps: { clock: Clock; events: Pick<EventsRuntime, 'record'> },
  trx: Kysely<Database>,
  id: string,
  level: (row: MaterialRow) => number,
  threshold?: number | null,
): Promise<MaterialRow | null> {
  const row = await findMaterial(trx, id);
  if (!row) return null;
  const { state, events } = nextLevel(row, level(row), threshold === undefined ? row.reorder_threshold : threshold);
  const changed =
    state.remaining_weight !== row.remaining_weight ||
    state.status !== row.status ||
    state.low_notified !== row.low_notified ||
    state.reorder_threshold !== row.reorder_threshold;
  if (!changed) return row;
  await updateMaterial(trx, id, { ...state, updated_at: isoTime(deps.clock.now()) });
  const after = (await findMaterial(trx, id))!;
  for (const type of events) await deps.events.record(trx, type, toMaterialRecord(after));
  return after;
}
