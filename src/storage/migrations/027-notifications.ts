// Migration: notification channels (email, ntfy, Discord, Slack, Telegram, Pushover) with their rules, sealed secrets
// and quiet hours; the outbox of messages to people; and the farm-wide notification settings (dashboard link).
import type { Migration } from './migration.js';

const tables = (int: string, strict: string): string => `
    CREATE TABLE notification_channels (
      id TEXT PRIMARY KEY,
      kind TEXT NOT NULL CHECK (kind IN ('email', 'ntfy', 'discord', 'slack', 'telegram', 'pushover')),
      name TEXT NOT NULL,
      -- JSON of the settings that are not secret (SMTP host, chat id, ntfy topic...).
      settings TEXT NOT NULL,
      -- JSON of the secrets (SMTP password, bot token, webhook URL), sealed with the node's key; never returned.
      secret_sealed TEXT,
      -- The rule: JSON array of event names or wildcards this channel gets.
      events TEXT NOT NULL,
      -- JSON array of user ids whose email addresses an email channel also writes to.
      user_ids TEXT NOT NULL DEFAULT '[]',
      -- Quiet hours as minutes after midnight in the organization's time zone; both NULL: none.
      quiet_start_min ${int},
      quiet_end_min ${int},
      enabled ${int} NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
      -- Set by the server when the channel keeps failing; its messages wait (pending) until it is resumed.
      paused_reason TEXT,
      failures_in_a_row ${int} NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )${strict};

    -- One row per message to send: several events (a flood, a digest) are grouped into one row while it is open.
    CREATE TABLE notification_deliveries (
      id TEXT PRIMARY KEY,
      channel_id TEXT NOT NULL REFERENCES notification_channels (id) ON DELETE CASCADE,
      -- JSON array of the grouped events' seq (into events), oldest first; empty for a test message.
      event_seqs TEXT NOT NULL,
      -- 'now': urgent or outside quiet hours; 'digest': held until the quiet hours end; 'test': Send test.
      mode TEXT NOT NULL CHECK (mode IN ('now', 'digest', 'test')),
      -- Events may still join it while no attempt was made and it is not due yet.
      status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts ${int} NOT NULL DEFAULT 0,
      next_attempt_ms ${int},
      leased_by TEXT,
      title TEXT,
      last_status TEXT,
      last_error TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      delivered_at TEXT
    )${strict};
    CREATE INDEX notification_deliveries_queue ON notification_deliveries (channel_id, status, next_attempt_ms);
    CREATE INDEX notification_deliveries_due ON notification_deliveries (status, next_attempt_ms);

    CREATE TABLE notification_settings (
      id TEXT PRIMARY KEY,
      -- The dashboard's address as people reach it (https://farm.example); messages link into it. NULL: no links.
      dashboard_url TEXT,
      updated_at TEXT NOT NULL
    )${strict};
`;

export const migration027Notifications: Migration = {
  version: 27,
  name: 'notifications',
  sql: tables('INTEGER', ' STRICT'),
  pg: tables('BIGINT', ''),
};
