// Migration 2: the event log, webhooks and their delivery outbox, and the organization's webhook host allow-list.
import type { Migration } from './migration.js';

export const migration005Webhooks: Migration = {
  version: 5,
  name: 'webhooks',
  sql: `
    -- The retained event log: the live stream resumes from it (Last-Event-ID) and deliveries point into it.
    -- seq orders events in commit order; AUTOINCREMENT so a pruned seq is never handed out again.
    CREATE TABLE events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      type TEXT NOT NULL,
      created_at TEXT NOT NULL,
      created_ms INTEGER NOT NULL,
      body TEXT NOT NULL
    ) STRICT;
    CREATE INDEX events_created_ms ON events (created_ms);

    CREATE TABLE webhooks (
      id TEXT PRIMARY KEY,
      url TEXT NOT NULL,
      events TEXT NOT NULL,
      secret TEXT NOT NULL,
      previous_secret TEXT,
      previous_secret_until_ms INTEGER,
      enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
      last_seq INTEGER NOT NULL DEFAULT 0,
      failing_since TEXT,
      disabled_reason TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) STRICT;

    CREATE TABLE webhook_deliveries (
      id TEXT PRIMARY KEY,
      webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      event_seq INTEGER NOT NULL REFERENCES events (seq) ON DELETE CASCADE,
      seq INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_ms INTEGER,
      last_status_code INTEGER,
      last_duration_ms INTEGER,
      last_error TEXT,
      response_excerpt TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      delivered_at TEXT,
      UNIQUE (webhook_id, seq)
    ) STRICT;
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_ms);
    CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (webhook_id, status, next_attempt_ms);
    CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_seq);

    ALTER TABLE organization ADD COLUMN webhook_allowed_hosts TEXT NOT NULL DEFAULT '[]';
  `,
};
