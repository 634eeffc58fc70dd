// Every table of the schema in foreign-key order (parents first), with the key its rows are read in: what
// printfarm db copy copies and verifies. A test checks the list against the migrated schema of both engines.

export interface CopyTable {
  name: string;
  /** The primary key: rows are read in batches ordered by it. */
  key: readonly string[];
  /** Columns referring to rows of the same table: written after the table's rows, so their order does not matter. */
  selfRefs?: readonly string[];
  /** An identity column whose high-water mark moves with the rows (new rows follow, pruned values stay unused). */
  identity?: string;
  /** Rows per batch when the rows are large (file chunks hold up to 1 MiB each). */
  batchRows?: number;
}

export const COPY_TABLES: readonly CopyTable[] = [
  { name: 'schema_version', key: ['version'] },
  { name: 'organization', key: ['id'] },
  { name: 'users', key: ['id'], selfRefs: ['invited_by'] },
  { name: 'user_passwords', key: ['user_id'] },
  { name: 'api_keys', key: ['id'], selfRefs: ['created_by_key_id', 'rolled_to'] },
  { name: 'sessions', key: ['id'] },
  { name: 'idempotency_keys', key: ['api_key_id', 'idem_key'] },
  { name: 'nodes', key: ['id'] },
  { name: 'database_identity', key: ['id'] },
  { name: 'printers', key: ['id'] },
  { name: 'cameras', key: ['id'] },
  { name: 'files', key: ['id'] },
  { name: 'file_chunks', key: ['sha256', 'part', 'idx'], batchRows: 8 },
  { name: 'materials', key: ['id'] },
  { name: 'jobs', key: ['id'] },
  { name: 'job_material_usage', key: ['job_id', 'tool'] },
  { name: 'job_snapshots', key: ['id'], batchRows: 16 },
  { name: 'events', key: ['seq'], identity: 'seq' },
  { name: 'webhooks', key: ['id'] },
  { name: 'webhook_deliveries', key: ['id'] },
  { name: 'notification_settings', key: ['id'] },
  { name: 'notification_channels', key: ['id'] },
  { name: 'notification_deliveries', key: ['id'] },
  // The roll-ups: copied as they are with the triggers that keep them switched off (verified equal by checksum).
  { name: 'analytics_day', key: ['day', 'printer_id'] },
  { name: 'analytics_day_failure', key: ['day', 'printer_id', 'code'] },
  { name: 'analytics_day_material', key: ['day', 'printer_id', 'type', 'color', 'material_id'] },
  { name: 'analytics_hour', key: ['hour', 'printer_id'] },
  { name: 'analytics_hour_material', key: ['hour', 'printer_id', 'type'] },
  { name: 'analytics_long_jobs', key: ['job_id'] },
  { name: 'analytics_backward_jobs', key: ['job_id'] },
  { name: 'nightly_backup_runs', key: ['day'] },
];

/**
 * Tables whose rows are farm data: a target holding any of them is not empty (schema_version is the migration's own;
 * the record of nightly backups says what was archived, not what the farm holds).
 */
export const FARM_TABLES = COPY_TABLES.filter((t) => t.name !== 'schema_version' && t.name !== 'nightly_backup_runs');
