// Migration: the organization's "cool on pause" setting (heaters off while a job is paused; resume then reheats).
import type { Migration } from './migration.js';

export const migration011CoolOnPause: Migration = {
  version: 11,
  name: 'cool-on-pause',
  sql: `
    ALTER TABLE organization ADD COLUMN cool_on_pause INTEGER NOT NULL DEFAULT 0 CHECK (cool_on_pause IN (0, 1));
  `,
  pg: `
    ALTER TABLE organization ADD COLUMN cool_on_pause BIGINT NOT NULL DEFAULT 0 CHECK (cool_on_pause IN (0, 1));
  `,
};
