// Migration: the organization's nightly backup settings (time of day in the organization's time zone, how many to keep).
import type { Migration } from './migration.js';

export const migration015BackupSettings: Migration = {
  version: 15,
  name: 'backup-settings',
  sql: `
    ALTER TABLE organization ADD COLUMN backup_time TEXT DEFAULT '03:30'
      CHECK (backup_time IS NULL OR (length(backup_time) = 5 AND backup_time GLOB '[0-2][0-9]:[0-5][0-9]' AND backup_time < '24:00'));
    ALTER TABLE organization ADD COLUMN backup_keep INTEGER NOT NULL DEFAULT 7 CHECK (backup_keep BETWEEN 1 AND 365);
  `,
  pg: `
    ALTER TABLE organization ADD COLUMN backup_time TEXT DEFAULT '03:30'
      CHECK (backup_time IS NULL OR (length(backup_time) = 5 AND backup_time ~ '^[0-2][0-9]:[0-5][0-9]$' AND backup_time < '24:00'));
    ALTER TABLE organization ADD COLUMN backup_keep BIGINT NOT NULL DEFAULT 7 CHECK (backup_keep BETWEEN 1 AND 365);
  `,
};
