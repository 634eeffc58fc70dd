// The organization's Home Assistant broker columns (migration 026): read and written whole.
import type { Db } from '../storage/db.js';

export interface StoredBroker {
  organizationId: string;
  /** mqtt[s]://user@host:port, never with a password; null: none. */
  url: string | null;
  /** Sealed; null: none. */
  password: string | null;
  ca: string | null;
}

export async function readBroker(db: Db): Promise<StoredBroker | null> {
  const row = await db.selectFrom('organization').select(['id', 'mqtt_url', 'mqtt_password', 'mqtt_ca']).orderBy('created_at').limit(1).executeTakeFirst();
  return row ? { organizationId: row.id, url: row.mqtt_url, password: row.mqtt_password, ca: row.mqtt_ca } : null;
}

export async function writeBroker(db: Db, b: StoredBroker, nowIso: string): Promise<void> {
  await db.updateTable('organization').set({ mqtt_url: b.url, mqtt_password: b.password, mqtt_ca: b.ca, updated_at: nowIso }).where('id', '=', b.organizationId).execute();
}
