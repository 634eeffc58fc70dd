// Migration: a job's print options (bed levelling, timelapse, flow calibration), sent with the start to printers that
// take them (Bambu's project_file); JSON, NULL when the job set none (each printer's own defaults then).
import type { Migration } from './migration.js';

const columns = `
    ALTER TABLE jobs ADD COLUMN print_options TEXT;
  `;

export const migration025PrintOptions: Migration = {
  version: 25,
  name: 'print-options',
  sql: columns,
  pg: columns,
};
