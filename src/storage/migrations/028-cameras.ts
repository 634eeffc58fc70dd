// Migration: cameras (issue 26): each printer's camera addresses (credentials sealed apart), how to show the picture,
// and whether its jobs are photographed; and the pictures (snapshots) taken of each job.
import type { Migration } from './migration.js';

/** The column types each engine gives the same values (PostgreSQL's INTEGER is 32-bit; SQLite's 64). */
interface Types {
  strict: string;
  int: string;
  real: string;
  blob: string;
}

const cameras = ({ strict, int, real, blob }: Types) => `
    CREATE TABLE cameras (
      id TEXT PRIMARY KEY,
      printer_id TEXT NOT NULL REFERENCES printers (id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      -- Where the camera was found: 'url' (typed by the owner), 'moonraker' or 'octoprint' (the printer's own list), 'usb'.
      source TEXT NOT NULL DEFAULT 'url',
      -- The MJPEG stream and the JPEG snapshot address without user name and password; either may be null, not both.
      stream_url TEXT,
      snapshot_url TEXT,
      -- "user:password" of each URL, AES-256-GCM sealed under the data directory's key; null when the URL has none.
      stream_credentials_sealed TEXT,
      snapshot_credentials_sealed TEXT,
      rotation ${int} NOT NULL DEFAULT 0 CHECK (rotation IN (0, 90, 180, 270)),
      flip_horizontal ${int} NOT NULL DEFAULT 0,
      flip_vertical ${int} NOT NULL DEFAULT 0,
      -- How often a dashboard card refreshes its picture while visible, in seconds.
      refresh_seconds ${int} NOT NULL DEFAULT 10,
      enabled ${int} NOT NULL DEFAULT 1,
      -- 1: pictures of this printer's jobs at start, every job_picture_step percent (null: none between) and at the end.
      job_pictures ${int} NOT NULL DEFAULT 1,
      job_picture_step ${int},
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )${strict};
    CREATE INDEX cameras_printer ON cameras (printer_id);
    CREATE TABLE job_snapshots (
      id TEXT PRIMARY KEY,
      job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
      -- The camera it came from; kept (not a foreign key) when the camera is removed later.
      camera_id TEXT NOT NULL,
      -- 'start', 'progress', 'completed', 'failed' or 'cancelled'.
      moment TEXT NOT NULL,
      progress ${real},
      size ${int} NOT NULL,
      -- The JPEG itself: in the database, so every node of a farm serves it and a backup or db copy carries it.
      data ${blob} NOT NULL,
      taken_at TEXT NOT NULL
    )${strict};
    CREATE INDEX job_snapshots_job ON job_snapshots (job_id, taken_at);
    CREATE INDEX job_snapshots_taken ON job_snapshots (taken_at);
  `;

export const migration028Cameras: Migration = {
  version: 28,
  name: 'cameras',
  sql: cameras({ strict: ' STRICT', int: 'INTEGER', real: 'REAL', blob: 'BLOB' }),
  pg: cameras({ strict: '', int: 'BIGINT', real: 'DOUBLE PRECISION', blob: 'BYTEA' }),
};
