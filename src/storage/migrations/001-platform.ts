// Migration 1: the platform tables (organization, users, API keys, idempotency records).
import type { Migration } from './migration.js';

export const migration001Platform: Migration = {
  version: 1,
  name: 'platform',
  sql: `
    CREATE TABLE organization (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      plan TEXT NOT NULL DEFAULT 'enterprise' CHECK (plan IN ('free', 'pro', 'enterprise')),
      rate_limit_per_hour INTEGER NOT NULL DEFAULT 100000 CHECK (rate_limit_per_hour > 0),
      currency TEXT NOT NULL DEFAULT 'USD',
      hourly_rate REAL NOT NULL DEFAULT 0,
      energy_cost_per_kwh REAL NOT NULL DEFAULT 0,
      timezone TEXT NOT NULL DEFAULT 'UTC',
      auto_start INTEGER NOT NULL DEFAULT 1 CHECK (auto_start IN (0, 1)),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) STRICT;

    CREATE TABLE users (
      id TEXT PRIMARY KEY,
      email TEXT NOT NULL COLLATE NOCASE UNIQUE,
      name TEXT NOT NULL,
      role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'operator', 'viewer')),
      status TEXT NOT NULL CHECK (status IN ('active', 'invited')),
      invite_token_hash TEXT,
      invited_by TEXT REFERENCES users (id),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) STRICT;

    CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      env TEXT NOT NULL CHECK (env IN ('live', 'test', 'dev')),
      prefix TEXT NOT NULL,
      hash TEXT NOT NULL UNIQUE,
      scopes TEXT NOT NULL,
      user_id TEXT REFERENCES users (id),
      created_by_key_id TEXT REFERENCES api_keys (id),
      created_at TEXT NOT NULL,
      last_used_at TEXT,
      expires_at TEXT,
      revoked_at TEXT,
      rolled_to TEXT REFERENCES api_keys (id)
    ) STRICT;

    CREATE TABLE idempotency_keys (
      api_key_id TEXT NOT NULL,
      idem_key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      status INTEGER,
      response TEXT,
      created_ms INTEGER NOT NULL,
      PRIMARY KEY (api_key_id, idem_key)
    ) STRICT;
    CREATE INDEX idempotency_keys_created ON idempotency_keys (created_ms);
  `,
  pg: `
    CREATE TABLE organization (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      plan TEXT NOT NULL DEFAULT 'enterprise' CHECK (plan IN ('free', 'pro', 'enterprise')),
      rate_limit_per_hour BIGINT NOT NULL DEFAULT 100000 CHECK (rate_limit_per_hour > 0),
      currency TEXT NOT NULL DEFAULT 'USD',
      hourly_rate DOUBLE PRECISION NOT NULL DEFAULT 0,
      energy_cost_per_kwh DOUBLE PRECISION NOT NULL DEFAULT 0,
      timezone TEXT NOT NULL DEFAULT 'UTC',
      auto_start BIGINT NOT NULL DEFAULT 1 CHECK (auto_start IN (0, 1)),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );

    -- SQLite's COLLATE NOCASE UNIQUE: one address whatever its case, enforced by a unique index on lower(email).
    CREATE TABLE users (
      id TEXT PRIMARY KEY,
      email TEXT NOT NULL,
      name TEXT NOT NULL,
      role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'operator', 'viewer')),
      status TEXT NOT NULL CHECK (status IN ('active', 'invited')),
      invite_token_hash TEXT,
      invited_by TEXT REFERENCES users (id),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE UNIQUE INDEX users_email_nocase ON users (lower(email));

    CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      env TEXT NOT NULL CHECK (env IN ('live', 'test', 'dev')),
      prefix TEXT NOT NULL,
      hash TEXT NOT NULL UNIQUE,
      scopes TEXT NOT NULL,
      user_id TEXT REFERENCES users (id),
      created_by_key_id TEXT REFERENCES api_keys (id),
      created_at TEXT NOT NULL,
      last_used_at TEXT,
      expires_at TEXT,
      revoked_at TEXT,
      rolled_to TEXT REFERENCES api_keys (id)
    );

    CREATE TABLE idempotency_keys (
      api_key_id TEXT NOT NULL,
      idem_key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      status BIGINT,
      response TEXT,
      created_ms BIGINT NOT NULL,
      PRIMARY KEY (api_key_id, idem_key)
    );
    CREATE INDEX idempotency_keys_created ON idempotency_keys (created_ms);
  `,
};
