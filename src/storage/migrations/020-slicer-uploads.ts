// Migration: jobs a slicer sent through an emulated host API remember which one, and keys that may upload from a slicer
// keep the sealed Digest secret PrusaSlicer's PrusaLink host type authenticates with.
import type { Migration } from './migration.js';

const columns = `
    -- octoprint | prusalink | moonraker: the host API a slicer uploaded the job through; null for every other job.
    ALTER TABLE jobs ADD COLUMN slicer_api TEXT CHECK (slicer_api IN ('octoprint', 'prusalink', 'moonraker'));
    -- HTTP Digest's HA1 (MD5 of prefix:realm:key), sealed with the node's secret key: Digest cannot be checked against
    -- the key's SHA-256, and HA1 is as good as the key for that one realm. Only keys that may upload from a slicer.
    ALTER TABLE api_keys ADD COLUMN digest_ha1 TEXT;
  `;

export const migration020SlicerUploads: Migration = {
  version: 20,
  name: 'slicer-uploads',
  sql: columns,
  pg: columns,
};
