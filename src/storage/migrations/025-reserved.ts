// Placeholder for migration 25, which another branch of this session adds: the list must stay consecutive. Drop this
// file and its index entry when merging that branch (it changes nothing).
import type { Migration } from './migration.js';

export const migration025Reserved: Migration = { version: 25, name: 'reserved', sql: 'SELECT 1;', pg: 'SELECT 1;' };
