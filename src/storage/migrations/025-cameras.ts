// Migration: cameras (issue 26): each printer's camera addresses (credentials sealed apart), how to show the picture,
// and whether its jobs are photographed; and the pictures taken of each job.
import type { Migration } from './migration.js';

const cameras = (strict: string) => `
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
      rotation INTEGER NOT NULL DEFAULT 0 CHECK (rotation IN (0, 90, 180, 270)),
      flip_horizontal INTEGER NOT NULL DEFAULT 0,
      flip_vertical INTEGER NOT NULL DEFAULT 0,
      -- How often a dashboard card refreshes its picture while visible, in seconds.
      refresh_seconds INTEGER NOT NULL DEFAULT 10,
      enabled INTEGER NOT NULL DEFAULT 1,
      -- 1: pictures of this printer's jobs at start, every job_picture_step percent (null: none between) and at the end.
      job_pictures INTEGER NOT NULL DEFAULT 1,
      job_picture_step INTEGER,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )${strict};
    CREATE INDEX cameras_printer ON cameras (printer_id);
    CREATE TABLE job_pictures (
      id TEXT PRIMARY KEY,
      job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
      camera_id TEXT,
      -- 'start', 'progress', 'completed', 'failed' or 'cancelled'.
      moment TEXT NOT NULL,
      progress REAL,
      size INTEGER NOT NULL,
      taken_at TEXT NOT NULL
    )${strict};
    CREATE INDEX job_pictures_job ON job_pictures (job_id, taken_at);
  `;

export const migration025Cameras: Migration = {
  version: 25,
  name: 'cameras',
  sql: cameras(' STRICT'),
  pg: cameras(''),
};
