// Migration: a table of password hashes for users who accepted their invitation (kept apart from users so no user read ever carries one).
import type { Migration } from './migration.js';

export const migration003UserPasswords: Migration = {
  version: 3,
  name: 'user-passwords',
  sql: `
    CREATE TABLE user_passwords (
      user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      hash TEXT NOT NULL,
      set_at TEXT NOT NULL
    ) STRICT;
  `,
  pg: `
    CREATE TABLE user_passwords (
      user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      hash TEXT NOT NULL,
      set_at TEXT NOT NULL
    );
  `,
};
