// Migration: several appliances (nodes) share one database: each registers itself and beats; a printer belongs to one node.
import type { Migration } from './migration.js';

export const migration017Nodes: Migration = {
  version: 17,
  name: 'nodes',
  sql: `
    CREATE TABLE nodes (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      -- The base URL other nodes forward printer actions to (http://host:port); NULL: not reachable from others.
      address TEXT,
      version TEXT NOT NULL,
      started_at TEXT NOT NULL,
      -- The node's own clock at its last heartbeat (shown to people).
      last_seen_at TEXT NOT NULL,
      -- Counts heartbeats: other nodes judge liveness by watching it change on their own monotonic clock, so clock skew
      -- between boxes never makes a node look lost.
      beats INTEGER NOT NULL DEFAULT 0,
      state TEXT NOT NULL DEFAULT 'online' CHECK (state IN ('online', 'lost', 'stopped')),
      updated_at TEXT NOT NULL
    ) STRICT;
    -- NULL on a farm upgraded from one box: the first node to start takes them.
    ALTER TABLE printers ADD COLUMN node_id TEXT REFERENCES nodes(id);
    CREATE INDEX printers_node ON printers (node_id);
    -- One row: facts about this database shared by every node (which secret key seals printer credentials).
    CREATE TABLE database_identity (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      -- HMAC of a fixed text under PRINTFARM_SECRET_KEY: a node started with another key refuses to start.
      secret_key_check TEXT NOT NULL,
      created_by_node TEXT,
      created_at TEXT NOT NULL
    ) STRICT;
  `,
  pg: `
    CREATE TABLE nodes (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      -- The base URL other nodes forward printer actions to (http://host:port); NULL: not reachable from others.
      address TEXT,
      version TEXT NOT NULL,
      started_at TEXT NOT NULL,
      -- The node's own clock at its last heartbeat (shown to people).
      last_seen_at TEXT NOT NULL,
      -- Counts heartbeats: other nodes judge liveness by watching it change on their own monotonic clock, so clock skew
      -- between boxes never makes a node look lost.
      beats BIGINT NOT NULL DEFAULT 0,
      state TEXT NOT NULL DEFAULT 'online' CHECK (state IN ('online', 'lost', 'stopped')),
      updated_at TEXT NOT NULL
    );
    -- NULL on a farm upgraded from one box: the first node to start takes them.
    ALTER TABLE printers ADD COLUMN node_id TEXT REFERENCES nodes(id);
    CREATE INDEX printers_node ON printers (node_id);
    -- One row: facts about this database shared by every node (which secret key seals printer credentials).
    CREATE TABLE database_identity (
      id BIGINT PRIMARY KEY CHECK (id = 1),
      -- HMAC of a fixed text under PRINTFARM_SECRET_KEY: a node started with another key refuses to start.
      secret_key_check TEXT NOT NULL,
      created_by_node TEXT,
      created_at TEXT NOT NULL
    );
  `,
};
