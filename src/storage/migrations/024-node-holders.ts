// Migration: which node holds a webhook delivery's lease and an in-progress idempotency key, so the farm counts its
// attempts in flight per webhook across nodes and hands back only what a lost node held.
import type { Migration } from './migration.js';

const columns = `
    -- The node whose lease next_attempt_ms holds while an attempt is in flight (PostgreSQL farms); NULL when not leased.
    ALTER TABLE webhook_deliveries ADD COLUMN leased_by TEXT;
    -- The few leased rows, found at once when their node is lost.
    CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (leased_by) WHERE leased_by IS NOT NULL;
    -- The node running the first request of a key while it is in progress; NULL on rows written before this migration.
    ALTER TABLE idempotency_keys ADD COLUMN node_id TEXT;
  `;

export const migration024NodeHolders: Migration = {
  version: 24,
  name: 'node-holders',
  sql: columns,
  pg: columns,
};
