// Migration 14 is another branch's (issue 19, assigned in parallel): this empty entry only keeps the list contiguous
// (migrate() requires version i+1 at index i) until that branch is merged; the merge replaces it with the real one.
import type { Migration } from './migration.js';

export const migration014Reserved: Migration = {
  version: 14,
  name: 'reserved',
  sql: '',
};
