// BRANCH STAND-INS (homeassistant branch only): migrations 025 and 026 belong to other branches of this session; the
// list must be consecutive, so these no-ops hold their places until the merge, which drops this file for the real ones.
import type { Migration } from './migration.js';

export const migration025Reserved: Migration = { version: 25, name: 'reserved-025', sql: 'SELECT 1;', pg: 'SELECT 1;' };
export const migration026Reserved: Migration = { version: 26, name: 'reserved-026', sql: 'SELECT 1;', pg: 'SELECT 1;' };
