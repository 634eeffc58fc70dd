// Migration: the organization's storage reserve (MB kept free for the database; uploads stop below it). NULL: the default.
import type { Migration } from './migration.js';

export const migration014StorageReserve: Migration = {
  version: 14,
  name: 'storage-reserve',
  sql: `
    ALTER TABLE organization ADD COLUMN storage_reserve_mb INTEGER CHECK (storage_reserve_mb IS NULL OR storage_reserve_mb >= 0);
  `,
  pg: `
    ALTER TABLE organization ADD COLUMN storage_reserve_mb BIGINT CHECK (storage_reserve_mb IS NULL OR storage_reserve_mb >= 0);
  `,
};
