// Migration: browser sign-in sessions (only a hash of the cookie token is stored) and the organization's session lifetime and idle timeout.
import type { Migration } from './migration.js';

export const migration008Sessions: Migration = {
  version: 8,
  name: 'sessions',
  sql: `
    CREATE TABLE sessions (
      id TEXT PRIMARY KEY,
      -- Hex SHA-256 of the cookie token: the database alone cannot sign anyone in.
      token_hash TEXT NOT NULL UNIQUE,
      -- Exactly one of the two: signed in with a password (user_id) or with an API key (api_key_id).
      user_id TEXT REFERENCES users (id) ON DELETE CASCADE,
      api_key_id TEXT REFERENCES api_keys (id) ON DELETE CASCADE,
      created_at TEXT NOT NULL,
      -- Moved by use, written at most once a minute per session.
      last_seen_at TEXT NOT NULL,
      CHECK ((user_id IS NULL) <> (api_key_id IS NULL))
    ) STRICT;
    CREATE INDEX sessions_user ON sessions (user_id) WHERE user_id IS NOT NULL;
    CREATE INDEX sessions_api_key ON sessions (api_key_id) WHERE api_key_id IS NOT NULL;
    CREATE INDEX sessions_created ON sessions (created_at);
    CREATE INDEX sessions_last_seen ON sessions (last_seen_at);

    ALTER TABLE organization ADD COLUMN session_lifetime_hours INTEGER NOT NULL DEFAULT 168
      CHECK (session_lifetime_hours BETWEEN 1 AND 8760);
    ALTER TABLE organization ADD COLUMN session_idle_minutes INTEGER NOT NULL DEFAULT 720
      CHECK (session_idle_minutes BETWEEN 5 AND 525600);
  `,
  pg: `
    CREATE TABLE sessions (
      id TEXT PRIMARY KEY,
      -- Hex SHA-256 of the cookie token: the database alone cannot sign anyone in.
      token_hash TEXT NOT NULL UNIQUE,
      -- Exactly one of the two: signed in with a password (user_id) or with an API key (api_key_id).
      user_id TEXT REFERENCES users (id) ON DELETE CASCADE,
      api_key_id TEXT REFERENCES api_keys (id) ON DELETE CASCADE,
      created_at TEXT NOT NULL,
      -- Moved by use, written at most once a minute per session.
      last_seen_at TEXT NOT NULL,
      CHECK ((user_id IS NULL) <> (api_key_id IS NULL))
    );
    CREATE INDEX sessions_user ON sessions (user_id) WHERE user_id IS NOT NULL;
    CREATE INDEX sessions_api_key ON sessions (api_key_id) WHERE api_key_id IS NOT NULL;
    CREATE INDEX sessions_created ON sessions (created_at);
    CREATE INDEX sessions_last_seen ON sessions (last_seen_at);

    ALTER TABLE organization ADD COLUMN session_lifetime_hours BIGINT NOT NULL DEFAULT 168
      CHECK (session_lifetime_hours BETWEEN 1 AND 8760);
    ALTER TABLE organization ADD COLUMN session_idle_minutes BIGINT NOT NULL DEFAULT 720
      CHECK (session_idle_minutes BETWEEN 5 AND 525600);
  `,
};
