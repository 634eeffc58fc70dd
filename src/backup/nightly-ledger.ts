// Which nights have their nightly backup, and which process takes tonight's: the backups folder on a single box, a
// row per night in the database on a farm of several nodes (the node whose insert wins takes it, once per farm).
import type { Db } from '../storage/db.js';
import { listBackups } from './backup-folder.js';
import type { LocalTime } from './nightly-backup.js';

export interface NightlyLedger {
  /** The local day of the last nightly backup taken (or being taken), null when none. */
  lastDay(timezone: string, nowMs: number): Promise<string | null>;
  /** Takes tonight's backup for this process: false when another one has it. */
  claim(day: string, nowMs: number): Promise<boolean>;
  finished(day: string, file: string, bytes: number, nowMs: number): Promise<void>;
  /** The attempt failed: the night is free for the next attempt. */
  abandon(day: string): Promise<void>;
}

/** One box: the newest nightly archive in DATA_DIR/backups/ says which night was taken last; nothing to claim. */
export function folderLedger(dataDir: string, localTime: (ms: number, timezone: string) => LocalTime): NightlyLedger {
  return {
    async lastDay(timezone) {
      const last = (await listBackups(dataDir)).find((b) => b.kind === 'nightly');
      return last ? localTime(last.takenMs, timezone).day : null;
    },
    claim: async () => true,
    finished: async () => undefined,
    abandon: async () => undefined,
  };
}

/** A claim older than this and still unfinished belongs to a node that died while writing: another node takes the night over. */
export const STALE_CLAIM_MS = 60 * 60_000;

const iso = (ms: number): string => new Date(ms).toISOString();

/** Several nodes on one database: nightly_backup_runs has one row per night, inserted by the node that takes it. */
export function databaseLedger(db: Db, nodeId: string): NightlyLedger {
  return {
    async lastDay(_timezone, nowMs) {
      const row = await db
        .selectFrom('nightly_backup_runs')
        .select((eb) => eb.fn.max('day').as('day'))
        .where((eb) => eb.or([eb('finished_at', 'is not', null), eb('started_at', '>', iso(nowMs - STALE_CLAIM_MS))]))
        .executeTakeFirst();
      return (row?.day as string | null | undefined) ?? null;
    },
    async claim(day, nowMs) {
      // INSERT … ON CONFLICT DO NOTHING: of nodes racing for the same night, exactly one row is inserted, on both engines.
      const inserted = await db
        .insertInto('nightly_backup_runs')
        .values({ day, node_id: nodeId, started_at: iso(nowMs), finished_at: null, file: null, bytes: null })
        .onConflict((oc) => oc.column('day').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return true;
      // A stale unfinished claim is taken over by one node (the update's condition is checked and set atomically).
      const taken = await db
        .updateTable('nightly_backup_runs')
        .set({ node_id: nodeId, started_at: iso(nowMs) })
        .where('day', '=', day)
        .where('finished_at', 'is', null)
        .where('started_at', '<=', iso(nowMs - STALE_CLAIM_MS))
        .executeTakeFirst();
      return Number(taken.numUpdatedRows) === 1;
    },
    async finished(day, file, bytes, nowMs) {
      await db.updateTable('nightly_backup_runs').set({ finished_at: iso(nowMs), file, bytes }).where('day', '=', day).where('node_id', '=', nodeId).execute();
    },
    async abandon(day) {
      await db.deleteFrom('nightly_backup_runs').where('day', '=', day).where('node_id', '=', nodeId).where('finished_at', 'is', null).execute();
    },
  };
}
