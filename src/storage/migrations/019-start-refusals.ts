// Migration: a printer that keeps refusing job starts is held with its message (every node reads it from the row), and
// a queued job can say in words which printer holds it and why.
import type { Migration } from './migration.js';

const columns = (int: string): string => `
    -- Job starts the printer refused in a row (its upload or start command failed); a start that goes through resets it.
    ALTER TABLE printers ADD COLUMN start_refusals ${int} NOT NULL DEFAULT 0;
    -- The printer's words for the last refused start.
    ALTER TABLE printers ADD COLUMN start_refused_message TEXT;
    -- Set when the refusals reached the limit: the printer takes no job until it reconnects, is edited or retried.
    ALTER TABLE printers ADD COLUMN start_refused_since TEXT;
    -- Words beside a queued job's waiting_reason where the code alone does not say enough (which printer refused, why).
    ALTER TABLE jobs ADD COLUMN waiting_detail TEXT;
  `;

export const migration019StartRefusals: Migration = {
  version: 19,
  name: 'start-refusals',
  sql: columns('INTEGER'),
  pg: columns('BIGINT'),
};
