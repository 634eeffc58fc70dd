// Picks the ClusterBus for the database engine: in-process on SQLite (one node), LISTEN/NOTIFY on PostgreSQL.
import { sql } from 'kysely';
import type { Logger } from '../logger.js';
import type { DbHandle } from '../storage/db.js';
import { LocalClusterBus, type ClusterBus } from './cluster-bus.js';
import { PgClusterBus } from './pg-cluster-bus.js';

/** `url`: the PostgreSQL connection URL the handle was opened from (the listening connection needs its own). */
export async function openClusterBus(handle: DbHandle, url: string | null, logger: Logger): Promise<ClusterBus> {
  if (handle.engine === 'sqlite' || !url) return new LocalClusterBus();
  const bus = new PgClusterBus({
    url,
    logger,
    // Through the shared pool: a signal goes out even while the listening connection is reconnecting.
    notify: async (channel, payload) => void (await sql`SELECT pg_notify(${channel}, ${payload})`.execute(handle.db)),
  });
  // A node starts once it hears the others (a failure is retried in the background, logged, never fatal).
  await bus.started();
  return bus;
}
