// Job starts a printer refused in a row: counted in its row (every node reads it), held after a few, lifted when the
// printer changes (reconnects, is edited) or someone retries (action connect); a start that goes through resets it.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

type Q = Kysely<Database>;

/** Refused starts in a row after which the printer is held: one refusal can be a passing fault, three are not. */
export const START_REFUSAL_LIMIT = 3;

/** How long after a refused start the scheduler offers the printer a job again on its own (nothing else may wake it). */
export const START_RETRY_MS = 5_000;

/** A held printer as its record shows it. */
export interface StartRefusal {
  /** The printer's words for the last refused start. */
  message: string;
  /** When it was held (ISO time). */
  since: string;
  /** Refused starts in a row so far. */
  attempts: number;
}

/** A refused start counted: whether the printer is held now, and its name for the words a job shows. */
export interface RefusalCount {
  held: boolean;
  attempts: number;
  name: string;
}

/** Counts one refused start; `held` once the count reached the limit (the hold keeps its first `since`). */
export async function recordStartRefusal(db: Q, printerId: string, message: string, nowIso: string): Promise<RefusalCount> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('printers').select(['name', 'start_refusals', 'start_refused_since']).where('id', '=', printerId).executeTakeFirst();
    if (!row) return { held: false, attempts: 0, name: printerId };
    const attempts = Number(row.start_refusals) + 1;
    const held = attempts >= START_REFUSAL_LIMIT;
    await trx
      .updateTable('printers')
      .set({ start_refusals: attempts, start_refused_message: message, start_refused_since: held ? (row.start_refused_since ?? nowIso) : null })
      .where('id', '=', printerId)
      .execute();
    return { held, attempts, name: row.name };
  });
}

/** A start went through: the count starts again (a write only when there was something to forget). */
export async function forgetStartRefusals(db: Q, printerId: string): Promise<void> {
  await db
    .updateTable('printers')
    .set({ start_refusals: 0, start_refused_message: null, start_refused_since: null })
    .where('id', '=', printerId)
    .where('start_refusals', '>', 0)
    .execute();
}

/**
 * Lifts the hold (the printer changed, or someone retries). The count stays (at the limit or above): the printer gets one
 * more start, and a refusal then holds it again at once rather than after another round of refusals. True when a hold
 * was lifted.
 */
export async function liftStartRefusal(db: Q, printerId: string): Promise<boolean> {
  const res = await db
    .updateTable('printers')
    .set({ start_refused_since: null })
    .where('id', '=', printerId)
    .where('start_refused_since', 'is not', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** The record's view of a row: the refusal while the printer is held, else null. */
export function startRefusalOf(row: { start_refusals: number; start_refused_message: string | null; start_refused_since: string | null }): StartRefusal | null {
  if (row.start_refused_since === null) return null;
  return { message: row.start_refused_message ?? '', since: row.start_refused_since, attempts: Number(row.start_refusals) };
}
